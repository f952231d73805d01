// KvCacheCoordinator: a uniform model's coordinator is its manager, call for call; a hybrid
// model's groups (full + sliding window, recurrent) keep vLLM's per-group semantics on tiny
// pools (block size 4): sliding blocks freed as they leave the window, one state block per
// request, all-or-nothing across groups, the hit every group agrees on.
#include "core/cache/kv_cache_coordinator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "core/cache/prefix_hash.h"

namespace kvsim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr BlockId N = kNullBlock;
constexpr uint32_t kBlock = 4;

KvCacheConfig pool_config(uint32_t num_usable_blocks) {
  KvCacheConfig config;
  config.num_blocks = num_usable_blocks + 1;  // + the null block
  config.block_size = kBlock;
  config.eviction = EvictionKind::kLru;
  return config;
}

const CacheGroupSpec kFull{LayerKind::kFull, 0};
const CacheGroupSpec kWindow9{LayerKind::kSlidingWindow, 9};  // 8 keys before the newest
const CacheGroupSpec kState{LayerKind::kRecurrent, 0};

KvCacheCoordinator make(uint32_t num_usable_blocks, std::vector<CacheGroupSpec> groups) {
  return std::move(KvCacheCoordinator::create(pool_config(num_usable_blocks), groups)).value();
}

std::vector<BlockHash> hashes_of(int32_t first, int num_blocks) {
  std::vector<int32_t> ids(static_cast<size_t>(num_blocks) * kBlock);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = first + static_cast<int32_t>(i);
  std::vector<BlockHash> out;
  hash_token_blocks(ids, kBlock, &out);
  return out;
}

uint32_t used(const KvCacheCoordinator& c) { return c.pool().num_used_blocks(); }

TEST(KvCacheCoordinatorTest, OneGroupIsItsManagerCallForCall) {
  // The same random stream of admissions, decodes, preemptions and frees through a plain
  // manager and a one-group coordinator hands out the same blocks and hits.
  KvCacheCoordinator coordinator = make(40, {});
  KvCacheManager manager = std::move(KvCacheManager::create(pool_config(40))).value();
  std::mt19937 rng(7);
  std::vector<RequestId> live;
  PrefixHit hit_c;
  PrefixHit hit_m;
  for (RequestId id = 1; id < 300; ++id) {
    const int prompt_blocks = 1 + static_cast<int>(rng() % 4);
    const std::vector<BlockHash> hashes =
        hashes_of(static_cast<int32_t>(rng() % 3) * 100, prompt_blocks);
    const uint64_t prompt = uint64_t{kBlock} * prompt_blocks + rng() % kBlock;
    coordinator.add_request(id, prompt, hashes);
    manager.add_request(id, prompt, hashes);
    coordinator.get_computed_blocks(id, &hit_c);
    manager.get_computed_blocks(id, &hit_m);
    ASSERT_EQ(hit_c.blocks, hit_m.blocks);
    ASSERT_EQ(coordinator.blocks_to_admit(hit_c, prompt - hit_c.num_tokens),
              hit_m.num_free_blocks + (prompt + kBlock - 1) / kBlock - hit_m.num_blocks());
    const bool in_c = coordinator.allocate_slots(id, prompt - hit_c.num_tokens, hit_c).has_value();
    const bool in_m = manager.allocate_slots(id, prompt - hit_m.num_tokens, hit_m).has_value();
    ASSERT_EQ(in_c, in_m);
    if (in_c) live.push_back(id);
    for (size_t k = 0; k < live.size(); ++k) {
      const bool grown = coordinator.allocate_slots(live[k], 1).has_value();
      ASSERT_EQ(grown, manager.allocate_slots(live[k], 1).has_value());
      if (grown && rng() % 5 != 0) continue;
      if (rng() % 2 == 0) {  // preempted first (released tail first), then finished
        coordinator.preempt(live[k]);
        manager.preempt(live[k]);
      }
      coordinator.free(live[k]);
      manager.free(live[k]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k--));
    }
    ASSERT_EQ(used(coordinator), manager.pool().num_used_blocks());
  }
  coordinator.check_invariants();
  EXPECT_EQ(coordinator.stats().num_prefix_hit_tokens, manager.stats().num_prefix_hit_tokens);
  EXPECT_GT(coordinator.stats().num_prefix_hit_tokens, 0u);
}

TEST(KvCacheCoordinatorTest, SlidingBlocksAreFreedAsTheyLeaveTheWindow) {
  KvCacheCoordinator c = make(60, {kFull, kWindow9});
  c.add_request(1, 10, {});
  ASSERT_TRUE(c.allocate_slots(1, 10).has_value());
  EXPECT_EQ(used(c), 3u + 3u);  // 10 tokens: 3 blocks in each group, nothing out of the window
  for (uint64_t n = 10; n < 40; ++n) {
    ASSERT_TRUE(c.allocate_slots(1, 1).has_value());
    c.check_invariants();
    // Held before this step: n tokens. The window group dropped the blocks wholly before
    // n - 9 + 1 (vLLM's skipped tokens), the full group none.
    const uint64_t blocks = (n + 1 + kBlock - 1) / kBlock;
    const uint64_t dropped = (n - 8) / kBlock;
    ASSERT_EQ(c.group(1).block_table(1).size(), blocks);
    ASSERT_EQ(used(c), blocks + (blocks - dropped)) << "after " << n + 1 << " tokens";
  }
  EXPECT_THAT(c.group(1).block_table(1).subspan(0, 7), ::testing::Each(N));
  EXPECT_EQ(c.group(0).block_table(1).size(), 10u);
  EXPECT_EQ(c.stats().num_trimmed_blocks, 7u);
  c.free(1);
  EXPECT_EQ(used(c), 0u);
  c.check_invariants();
}

TEST(KvCacheCoordinatorTest, ARecurrentGroupHoldsOneStateBlockAndGetsNoHit) {
  KvCacheCoordinator c = make(30, {kState, kFull});
  EXPECT_EQ(c.group_spec(0).kind, LayerKind::kFull);  // attention groups first
  const std::vector<BlockHash> hashes = hashes_of(0, 4);
  c.add_request(1, 17, hashes);
  ASSERT_TRUE(c.allocate_slots(1, 17).has_value());
  EXPECT_EQ(used(c), 5u + 1u);
  ASSERT_TRUE(c.allocate_slots(1, 40).has_value());
  EXPECT_EQ(c.group(1).block_table(1).size(), 1u);  // 57 tokens, still one state
  EXPECT_EQ(used(c), 15u + 1u);
  c.free(1);
  c.add_request(2, 17, hashes);
  PrefixHit hit;
  c.get_computed_blocks(2, &hit);
  EXPECT_EQ(hit.num_blocks(), 0u);  // states are not cached, so no prefix is whole
  c.check_invariants();
}

TEST(KvCacheCoordinatorTest, AnAllocationFitsInEveryGroupOrChangesNothing) {
  KvCacheCoordinator c = make(7, {kFull, kWindow9});
  c.add_request(1, 12, {});
  EXPECT_FALSE(c.allocate_slots(1, 16).has_value());  // 4 + 4 blocks > 7
  EXPECT_EQ(used(c), 0u);
  EXPECT_EQ(c.group(0).block_table(1).size(), 0u);
  ASSERT_TRUE(c.allocate_slots(1, 12).has_value());  // 3 + 3, one block free
  EXPECT_EQ(c.blocks_to_admit(PrefixHit{}, 5), 4u);
  // 12 -> 17 tokens: 2 + 2 new blocks, the window's trim of block 0 frees 1: 4 > 1 + 1. The
  // refusal trims nothing either.
  EXPECT_FALSE(c.allocate_slots(1, 5).has_value());
  EXPECT_EQ(used(c), 6u);
  EXPECT_EQ(c.group(1).block_table(1).size(), 3u);
  EXPECT_NE(c.group(1).block_table(1)[0], N);
  EXPECT_EQ(c.stats().num_trimmed_blocks, 0u);
  c.check_invariants();
}

TEST(KvCacheCoordinatorTest, AWindowTrimPaysForAnotherGroupsBlock) {
  // 16 tokens held, one block free. The next token takes a block in each group; the window
  // group first frees the blocks wholly before 16 - 9 + 1 (blocks 0 and 1), so both fit.
  KvCacheCoordinator c = make(9, {kFull, kWindow9});
  c.add_request(1, 16, {});
  ASSERT_TRUE(c.allocate_slots(1, 16).has_value());
  EXPECT_EQ(c.num_free_blocks(), 1u);
  ASSERT_TRUE(c.allocate_slots(1, 1).has_value());
  EXPECT_EQ(used(c), 5u + 3u);
  EXPECT_THAT(c.group(1).block_table(1).subspan(0, 2), ::testing::Each(N));
  c.check_invariants();
}

TEST(KvCacheCoordinatorTest, AHitIsThePrefixEveryGroupHolds) {
  KvCacheCoordinator c = make(60, {kFull, kWindow9});
  const std::vector<BlockHash> hashes = hashes_of(0, 6);
  c.add_request(1, 25, hashes);
  ASSERT_TRUE(c.allocate_slots(1, 25).has_value());
  // The window group registered its own hashes: no group can hit another's blocks.
  const BlockId full_last = c.group(0).block_table(1)[5];
  const BlockId window_last = c.group(1).block_table(1)[5];
  EXPECT_EQ(c.pool().block_hash(full_last), hashes[5]);
  EXPECT_NE(c.pool().block_hash(window_last), hashes[5]);
  EXPECT_EQ(c.block_hashes(1)[0], hashes[0]);
  c.free(1);
  c.add_request(2, 25, hashes);
  PrefixHit hit;
  c.get_computed_blocks(2, &hit);
  // 6 blocks cached in both groups; a hit leaves a token: 6 blocks (24 of 25 tokens). The
  // window group needs only the cdiv(8, 4) = 2 blocks before the hit point.
  ASSERT_EQ(hit.num_blocks(), 6u);
  EXPECT_EQ(hit.num_tokens, 24u);
  ASSERT_EQ(hit.group_blocks.size(), 6u);
  EXPECT_THAT(std::vector<BlockId>(hit.group_blocks.begin(), hit.group_blocks.begin() + 4),
              ElementsAre(N, N, N, N));
  EXPECT_EQ(hit.num_free_blocks, 6u + 2u);
  EXPECT_EQ(c.blocks_to_admit(hit, 1), 8u + 2u);
  ASSERT_TRUE(c.allocate_slots(2, 1, hit).has_value());
  EXPECT_EQ(used(c), 7u + 3u);
  EXPECT_EQ(c.stats().num_prefix_hit_tokens, 24u);
  c.check_invariants();
}

TEST(KvCacheCoordinatorTest, ARequestHoldsItsHashesOnceForEveryGroup) {
  // One list per request, read by every group (a Mooncake prompt's hashes, 7 times over, were
  // most of a hybrid replay's memory); each group mixes its id in as it looks blocks up.
  KvCacheCoordinator c = make(60, {kFull, kWindow9, kWindow9});
  const std::vector<BlockHash> hashes = hashes_of(0, 6);
  c.add_request(1, 21, std::span<const BlockHash>(hashes).first(5));
  for (size_t g = 0; g < c.num_groups(); ++g) {
    EXPECT_EQ(c.group(g).block_hashes(1).data(), c.block_hashes(1).data()) << "group " << g;
  }
  ASSERT_TRUE(c.allocate_slots(1, 21).has_value());
  c.append_block_hashes(1, std::span<const BlockHash>(hashes).subspan(5));
  ASSERT_TRUE(c.allocate_slots(1, 3).has_value());  // block 5 is full: registered in each group
  EXPECT_EQ(c.block_hashes(1).size(), 6u);
  const auto hash_of = [&](size_t g) { return c.pool().block_hash(c.group(g).block_table(1)[5]); };
  EXPECT_EQ(hash_of(0), hashes[5]);
  EXPECT_NE(hash_of(1), hashes[5]);
  EXPECT_NE(hash_of(2), hashes[5]);
  EXPECT_NE(hash_of(1), hash_of(2));
  c.check_invariants();
}

TEST(KvCacheCoordinatorTest, ASlidingGroupLowersTheHitOfAFullGroup) {
  // Window 5: a hit needs the cdiv(4, 4) = 1 block before its end in the window group.
  const CacheGroupSpec window5{LayerKind::kSlidingWindow, 5};
  KvCacheCoordinator c = make(7, {kFull, window5});
  const std::vector<BlockHash> hashes = hashes_of(0, 2);
  c.add_request(1, 8, hashes);
  ASSERT_TRUE(c.allocate_slots(1, 8).has_value());  // full 1, 2; window 3, 4; free 5, 6, 7
  // The 9th token: the window group drops block 3 (wholly before 8 - 5 + 1), still cached and
  // free behind 7; the groups take 5 and 6.
  ASSERT_TRUE(c.allocate_slots(1, 1).has_value());
  EXPECT_EQ(c.num_free_blocks(), 2u);
  c.add_request(2, 1, {});
  ASSERT_TRUE(c.allocate_slots(2, 1).has_value());  // takes 7 and 3: block 3's content is gone
  EXPECT_THAT(c.group(1).block_table(2), ElementsAre(3u));
  EXPECT_EQ(c.stats().num_evictions, 1u);
  c.add_request(3, 5, std::span<const BlockHash>(hashes).first(1));
  PrefixHit full_only;
  c.group(0).get_computed_blocks(3, &full_only);
  EXPECT_EQ(full_only.num_blocks(), 1u);  // request 1 still holds its first full block
  PrefixHit hit;
  c.get_computed_blocks(3, &hit);
  EXPECT_EQ(hit.num_blocks(), 0u);  // but the window group no longer has it
  c.check_invariants();
}

// What per-group processing gives a sliding group of window 9 (8 keys before the newest, block
// 4): its table covers every token held, and entries [0, P) are null, P the larger of a hit's
// entries before its window (all but the last cdiv(8, 4) = 2) and the blocks wholly before
// (tokens held before the latest allocation) - 8.
struct WindowShape {
  uint64_t num_tokens = 0;   // held
  uint64_t null_prefix = 0;  // P
};

void expect_window_table(std::span<const BlockId> table, const WindowShape& shape) {
  ASSERT_EQ(table.size(), (shape.num_tokens + kBlock - 1) / kBlock);
  for (size_t k = 0; k < table.size(); ++k) {
    ASSERT_EQ(table[k] == N, k < shape.null_prefix) << "entry " << k;
  }
}

TEST(KvCacheCoordinatorTest, IdenticalSlidingGroupsKeepPerGroupTables) {
  // gemma's layout in small: a full group and three identical sliding groups over a tight pool
  // (allocations fail, cached blocks are evicted), random admissions with prefix hits, chunks,
  // decodes, preemptions and frees. After every call each sliding group's table is the one its
  // window alone gives, and the pool's ref counts are every group's tables.
  KvCacheCoordinator c = make(70, {kFull, kWindow9, kWindow9, kWindow9});
  std::mt19937 rng(11);
  std::vector<RequestId> waiting;
  std::vector<RequestId> running;
  std::vector<WindowShape> shapes(400);
  std::vector<uint64_t> prompts(400);
  PrefixHit hit;
  uint64_t num_hits = 0;
  uint64_t num_preempted = 0;
  const auto check = [&] {
    c.check_invariants();
    for (RequestId id : running) {
      for (size_t g = 1; g < c.num_groups(); ++g) {
        expect_window_table(c.group(g).block_table(id), shapes[id]);
      }
    }
  };
  for (RequestId id = 1; id < 400; ++id) {
    const int prompt_blocks = 1 + static_cast<int>(rng() % 6);
    prompts[id] = uint64_t{kBlock} * prompt_blocks + rng() % kBlock;
    c.add_request(id, prompts[id], hashes_of(static_cast<int32_t>(rng() % 3) * 100, prompt_blocks));
    waiting.push_back(id);
    for (size_t k = 0; k < waiting.size(); ++k) {  // admissions, with the hit every group has
      const RequestId w = waiting[k];
      c.get_computed_blocks(w, &hit);
      const uint64_t known = std::max(prompts[w], shapes[w].num_tokens);
      if (!c.allocate_slots(w, known - hit.num_tokens, hit).has_value()) continue;
      num_hits += hit.num_blocks() > 0 ? 1 : 0;
      shapes[w] = {known, hit.num_blocks() > 2 ? hit.num_blocks() - 2 : 0u};
      running.push_back(w);
      waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(k--));
      check();
    }
    for (size_t k = 0; k < running.size(); ++k) {  // decodes and chunks of 1 to 6 tokens
      const RequestId r = running[k];
      const uint64_t step = rng() % 3 == 0 ? 1 + rng() % 6 : 1;
      const uint64_t held = shapes[r].num_tokens;
      if (c.allocate_slots(r, step).has_value()) {
        shapes[r].num_tokens += step;
        if (held > 8) shapes[r].null_prefix = std::max(shapes[r].null_prefix, (held - 8) / kBlock);
      } else {  // no room: preempted, to be admitted again with what is still cached
        c.preempt(r);
        ++num_preempted;
        waiting.push_back(r);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(k--));
        check();
        continue;
      }
      check();
      if (shapes[r].num_tokens < prompts[r] + 10 + rng() % 20) continue;
      c.free(r);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k--));
      check();
    }
  }
  EXPECT_GT(num_hits, 20u);
  EXPECT_GT(num_preempted, 5u);
  EXPECT_GT(c.stats().num_evictions, 0u);
  EXPECT_GT(c.stats().num_trimmed_blocks, 0u);
}

TEST(KvCacheCoordinatorTest, RefusesWhatAHybridCacheDoesNotDo) {
  KvCacheConfig config = pool_config(10);
  config.num_host_blocks = 4;
  const std::vector<CacheGroupSpec> groups = {kFull, kWindow9};
  EXPECT_THAT(KvCacheCoordinator::create(config, groups).status().message(),
              HasSubstr("not swapped"));
  const std::vector<CacheGroupSpec> tiny = {kFull, {LayerKind::kSlidingWindow, 1}};
  EXPECT_THAT(KvCacheCoordinator::create(pool_config(10), tiny).status().message(),
              HasSubstr("at least 2 tokens"));
}

}  // namespace
}  // namespace kvsim
