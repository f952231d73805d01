// BlockPool and its free queue on a 6-block pool (no null block, as a tier's): the exact
// blocks handed out and the exact eviction order after every step, for every eviction policy
// (one suite, one table of expectations per policy); several blocks per hash, the sink,
// reset_prefix_cache, and a device pool's null block.
#include "core/cache/block_pool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/cache/free_block_queue.h"
#include "tests/core/cache/eviction_recorder.h"
#include "tests/core/cache/policy_text.h"

namespace kvsim {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// What each policy must do in the scenario of PoolScenario below.
struct PolicyExpectation {
  const char* name;
  std::vector<BlockId> order_after_freeing_a;  // A (0,1,2 cached) freed tail first
  std::vector<BlockId> order_after_hit;        // + hit on A's block 1, freed again, B freed
  std::vector<BlockId> reused;                 // the next three blocks allocated
  uint64_t evictions;                          // cached blocks among them
};

const PolicyExpectation kExpectations[] = {
    // lru: in the order blocks were freed (tail first), block 5 (never used) first.
    {"lru", {5, 2, 1, 0}, {5, 2, 0, 1, 4, 3}, {5, 2, 0}, 2},
    // lfu: block 1 was hit once more than the others, so it goes last.
    {"lfu", {5, 2, 1, 0}, {5, 2, 0, 4, 3, 1}, {5, 2, 0}, 2},
    // fifo: in the order the blocks were cached (0, 1, 2, 3, 4), hits or not.
    {"fifo", {5, 0, 1, 2}, {5, 0, 1, 2, 3, 4}, {5, 0, 1}, 2},
    // none: nothing is cached, so no hit; plain order of freeing, no eviction.
    {"none", {5, 2, 1, 0}, {5, 2, 1, 0, 4, 3}, {5, 2, 1}, 0},
};

void PrintTo(const PolicyExpectation& expectation, std::ostream* out) { *out << expectation.name; }

class BlockPoolPolicyTest : public ::testing::TestWithParam<PolicyExpectation> {
 protected:
  BlockPoolPolicyTest() : pool_(6, make_eviction_policy(eviction_of(GetParam().name), 6)) {}

  std::vector<BlockId> order() const {
    std::vector<BlockId> out;
    pool_.eviction_order(&out);
    return out;
  }
  std::vector<BlockId> allocate(int n) {
    std::vector<BlockId> out;
    for (int i = 0; i < n; ++i) out.push_back(pool_.allocate());
    return out;
  }

  BlockPool pool_;
};

TEST_P(BlockPoolPolicyTest, PoolScenario) {
  const PolicyExpectation& expect = GetParam();
  const bool caching = std::string(expect.name) != "none";
  EXPECT_EQ(pool_.policy().name(), expect.name);
  EXPECT_THAT(order(), ElementsAre(0, 1, 2, 3, 4, 5));

  // Request A takes 0, 1, 2 and caches them; request B takes 3, 4 and caches them.
  EXPECT_THAT(allocate(3), ElementsAre(0, 1, 2));
  EXPECT_THAT(allocate(2), ElementsAre(3, 4));
  for (BlockId block = 0; block < 5; ++block) {
    EXPECT_EQ(pool_.cache(block, 100 + block), caching) << block;
  }
  EXPECT_EQ(pool_.num_cached_blocks(), caching ? 5u : 0u);
  EXPECT_THAT(order(), ElementsAre(5));
  pool_.check_invariants();

  // A finishes: tail first.
  for (BlockId block : {2u, 1u, 0u}) pool_.release(block);
  EXPECT_THAT(order(), ElementsAreArray(expect.order_after_freeing_a));
  EXPECT_EQ(pool_.num_free_blocks(), 4u);
  EXPECT_EQ(pool_.num_cached_free_blocks(), caching ? 3u : 0u);
  pool_.check_invariants();

  // A new request hits A's block 1 (found while free: out of the queue), then finishes;
  // then B finishes.
  const std::optional<BlockId> hit = pool_.find(101);
  EXPECT_EQ(hit.has_value(), caching);
  if (hit) {
    EXPECT_EQ(*hit, 1u);
    pool_.touch(*hit);
    EXPECT_EQ(pool_.ref_count(1), 1u);
    EXPECT_EQ(pool_.num_free_blocks(), 3u);
    pool_.check_invariants();
    pool_.release(*hit);
  }
  for (BlockId block : {4u, 3u}) pool_.release(block);
  EXPECT_THAT(order(), ElementsAreArray(expect.order_after_hit));
  pool_.check_invariants();

  // Three new blocks: the empty one first, then cached ones are evicted in policy order.
  EXPECT_THAT(allocate(3), ElementsAreArray(expect.reused));
  EXPECT_EQ(pool_.num_evictions(), expect.evictions);
  for (BlockId block : expect.reused) {
    EXPECT_FALSE(pool_.block_hash(block).has_value()) << "evicted block kept its hash";
  }
  if (caching) {
    EXPECT_FALSE(pool_.find(100 + expect.reused[1]).has_value());
  }
  pool_.check_invariants();
}

// vLLM keeps every block cached under a hash (no de-duplication): the earliest-cached copy
// still cached answers find(), and evicting it hands the hash to the next copy.
TEST_P(BlockPoolPolicyTest, SeveralBlocksPerHashTheEarliestAnswers) {
  const bool caching = std::string(GetParam().name) != "none";
  const BlockId a = pool_.allocate();
  const BlockId b = pool_.allocate();
  const BlockId c = pool_.allocate();
  EXPECT_EQ(pool_.cache(a, 7), caching);
  EXPECT_EQ(pool_.cache(b, 7), caching);  // same content computed twice: both cached
  EXPECT_EQ(pool_.cache(c, 7), caching);
  EXPECT_FALSE(pool_.cache(a, 8));  // a block keeps its first hash
  pool_.check_invariants();
  if (!caching) {
    EXPECT_FALSE(pool_.find(7).has_value());
    return;
  }
  EXPECT_EQ(pool_.num_cached_blocks(), 3u);
  EXPECT_EQ(pool_.find(7), std::optional<BlockId>(a));
  // Every block is free, in the order a, b, c at the back of the queue (lfu: equal uses; fifo:
  // cache order); the three blocks never used come first.
  for (BlockId block : {a, b, c}) pool_.release(block);
  EXPECT_EQ(pool_.num_cached_free_blocks(), 3u);
  std::vector<BlockId> out(3);
  pool_.allocate(out);  // blocks 3, 4, 5: nothing evicted
  EXPECT_EQ(pool_.num_evictions(), 0u);
  EXPECT_EQ(pool_.allocate(), a);  // evicts the earliest copy: b takes over
  EXPECT_EQ(pool_.find(7), std::optional<BlockId>(b));
  EXPECT_FALSE(pool_.block_hash(a).has_value());
  pool_.touch(c);  // a hit on the later copy: out of the queue
  EXPECT_EQ(pool_.allocate(), b);
  EXPECT_EQ(pool_.find(7), std::optional<BlockId>(c));
  EXPECT_EQ(pool_.num_evictions(), 2u);
  EXPECT_EQ(pool_.num_cached_blocks(), 1u);
  pool_.check_invariants();
}

// The sink hears of a content only when its last copy leaves the pool.
TEST_P(BlockPoolPolicyTest, TheSinkIsToldWhenTheLastCopyIsEvicted) {
  if (std::string(GetParam().name) == "none") return;
  EvictionRecorder evicted;
  pool_.set_eviction_sink(&evicted);
  std::vector<BlockId> all(6);
  pool_.allocate(all);
  for (BlockId block : all) pool_.cache(block, block < 3 ? 7 : 100 + block);
  for (BlockId block : all) pool_.release(block);
  std::vector<BlockId> reused(4);
  pool_.allocate(reused);  // evicts 0, 1, 2 (hash 7 three times) and 3
  EXPECT_EQ(pool_.num_evictions(), 4u);
  EXPECT_EQ(evicted.evicted, (std::vector<BlockHash>{7, 103}));
  pool_.set_eviction_sink(nullptr);
}

// vLLM's reset_prefix_cache: refused while a block is held; else every hash goes, no eviction
// is counted and the free queue keeps its order.
TEST_P(BlockPoolPolicyTest, ResetPrefixCacheDropsEveryHashAndKeepsTheOrder) {
  const BlockId a = pool_.allocate();
  const BlockId b = pool_.allocate();
  pool_.cache(a, 1);
  pool_.cache(b, 1);
  pool_.release(a);
  EXPECT_FALSE(pool_.reset_prefix_cache());  // b is held
  pool_.release(b);
  std::vector<BlockId> before;
  pool_.eviction_order(&before);
  EXPECT_TRUE(pool_.reset_prefix_cache());
  std::vector<BlockId> after;
  pool_.eviction_order(&after);
  EXPECT_EQ(after, before);
  EXPECT_EQ(pool_.num_cached_blocks(), 0u);
  EXPECT_EQ(pool_.num_cached_free_blocks(), 0u);
  EXPECT_FALSE(pool_.find(1).has_value());
  EXPECT_EQ(pool_.num_evictions(), 0u);
  pool_.check_invariants();
  const bool caching = std::string(GetParam().name) != "none";
  const BlockId c = pool_.allocate();
  EXPECT_EQ(pool_.cache(c, 1), caching);  // the map works after the reset
  EXPECT_EQ(pool_.find(1), caching ? std::optional<BlockId>(c) : std::nullopt);
  pool_.release(c);
  pool_.check_invariants();
}

// allocate(span) is n allocate() calls: the same blocks, the same evictions in the same order,
// on a pool large enough for the prefetch window and the sink's batches (64) to matter.
TEST_P(BlockPoolPolicyTest, AllocatingManyAtOnceIsAllocatingOneByOne) {
  constexpr uint32_t kBlocks = 300;
  auto make = [&] {
    return BlockPool(kBlocks, make_eviction_policy(eviction_of(GetParam().name), kBlocks));
  };
  BlockPool batched = make();
  BlockPool single = make();
  EvictionRecorder batched_evicted, single_evicted;
  batched.set_eviction_sink(&batched_evicted);
  single.set_eviction_sink(&single_evicted);
  std::vector<BlockId> held;
  for (uint32_t round = 0; round < 12; ++round) {
    const uint32_t n = 40 + 20 * round % kBlocks;  // up to 260 blocks: several sink batches
    std::vector<BlockId> out(n);
    batched.allocate(out);
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(single.allocate(), out[i]) << "round " << round << " block " << i;
      batched.cache(out[i], round * 1000 + i);
      single.cache(out[i], round * 1000 + i);
    }
    for (size_t i = n; i-- > 0;) {  // freed tail first, as a request's table is
      batched.release(out[i]);
      single.release(out[i]);
    }
    ASSERT_EQ(batched_evicted.evicted, single_evicted.evicted) << "round " << round;
    batched.check_invariants();
  }
  const bool caching = std::string(GetParam().name) != "none";
  EXPECT_EQ(batched.num_evictions(), single.num_evictions());
  EXPECT_EQ(batched_evicted.evicted.size() > 0, caching);
}

INSTANTIATE_TEST_SUITE_P(EveryPolicy, BlockPoolPolicyTest, ::testing::ValuesIn(kExpectations),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

// vLLM's one free queue: a cached block freed before an empty one is reused first (s03 of the
// conformance traces); lfu and fifo reuse the empty block first.
TEST(EvictionPolicyTest, LruIsOneQueueInFreeOrderCachedOrNot) {
  for (const char* name : {"lru", "lfu", "fifo"}) {
    BlockPool pool(2, make_eviction_policy(eviction_of(name), 2));
    const BlockId cached = pool.allocate();
    const BlockId empty = pool.allocate();
    pool.cache(cached, 5);
    pool.release(cached);
    pool.release(empty);
    const bool lru = std::string(name) == "lru";
    EXPECT_EQ(pool.allocate(), lru ? cached : empty) << name;
    EXPECT_EQ(pool.num_evictions(), lru ? 1u : 0u) << name;
  }
}

// Block 0 of a device pool is vLLM's null block: never free, never handed out.
TEST(BlockPoolTest, TheNullBlockIsNeverHandedOut) {
  BlockPool pool(4, make_eviction_policy(EvictionKind::kLru, 4), NullBlock::kReserved);
  EXPECT_EQ(pool.num_blocks(), 4u);
  EXPECT_EQ(pool.num_usable_blocks(), 3u);
  EXPECT_EQ(pool.first_usable_block(), 1u);
  EXPECT_EQ(pool.num_free_blocks(), 3u);
  std::vector<BlockId> order;
  pool.eviction_order(&order);
  EXPECT_THAT(order, ElementsAre(1, 2, 3));
  std::vector<BlockId> all(3);
  pool.allocate(all);
  EXPECT_THAT(all, ElementsAre(1, 2, 3));
  EXPECT_EQ(pool.num_used_blocks(), 3u);
  EXPECT_EQ(pool.num_free_blocks(), 0u);
  EXPECT_EQ(pool.ref_count(kReservedNullBlock), 0u);
  pool.check_invariants();
  EXPECT_DEATH(pool.release(kReservedNullBlock), "of a free block");
  EXPECT_DEATH(BlockPool(1, make_eviction_policy(EvictionKind::kLru, 1), NullBlock::kReserved),
               "pool size out of range");
}

// An id outside the pool is a bug in the caller: every call that takes one aborts, naming it
// (never a read or write past the block records).
TEST(BlockPoolDeathTest, EveryCallTakingABlockIdChecksItIsInRange) {
  BlockPool pool(10, make_eviction_policy(EvictionKind::kLru, 10));
  const BlockId held = pool.allocate();
  pool.cache(held, 42);
  EXPECT_EQ(pool.ref_count(9), 0u);  // the last id is fine
  const char* const kMessage = "block id 10 out of range: the pool has 10 blocks";
  EXPECT_DEATH((void)pool.ref_count(10), kMessage);
  EXPECT_DEATH((void)pool.block_hash(10), kMessage);
  EXPECT_DEATH(pool.touch(10), kMessage);
  EXPECT_DEATH(pool.share(10), kMessage);
  EXPECT_DEATH(pool.release(10), kMessage);
  EXPECT_DEATH((void)pool.cache(10, 43), kMessage);
  EXPECT_DEATH(pool.release(kNullBlock), "block id 4294967295 out of range");
  pool.check_invariants();  // nothing changed in this process
  EXPECT_EQ(pool.ref_count(held), 1u);
}

// The one table: every name parses into its kind, prints back, and builds the policy that
// reports it; an unknown name lists the valid ones and the nearest.
TEST(EvictionPolicyTest, EveryNameParsesPrintsBackAndBuildsItsPolicy) {
  EXPECT_THAT(eviction_names(), ElementsAre("lru", "lfu", "fifo", "none"));
  const EvictionKind kinds[] = {EvictionKind::kLru, EvictionKind::kLfu, EvictionKind::kFifo,
                                EvictionKind::kNone};
  for (size_t i = 0; i < std::size(kinds); ++i) {
    const std::string name = eviction_names()[i];
    const auto kind = parse_eviction(name);
    ASSERT_TRUE(kind.is_ok()) << name;
    EXPECT_EQ(*kind, kinds[i]) << name;
    EXPECT_EQ(eviction_name(*kind), name);
    const auto policy = make_eviction_policy(*kind, 4);
    EXPECT_EQ(policy->kind(), *kind);
    EXPECT_EQ(policy->name(), name);
    EXPECT_EQ(policy->caches_prefixes(), *kind != EvictionKind::kNone) << name;
  }
  const auto bad = parse_eviction("lfru");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("unknown eviction policy 'lfru' (did you mean 'lru'?); valid: lru, lfu, "
                        "fifo, none"));
}

TEST(EvictionPolicyTest, LfuCountsSaturateAndTiesGoLeastRecentlyFreed) {
  BlockPool pool(3, make_eviction_policy(EvictionKind::kLfu, 3));
  const BlockId a = pool.allocate();
  const BlockId b = pool.allocate();
  pool.cache(a, 1);
  pool.cache(b, 2);
  for (int i = 0; i < 200; ++i) pool.touch(a);  // far past the 63 lanes
  for (int i = 0; i < 201; ++i) pool.release(a);
  pool.release(b);
  std::vector<BlockId> order;
  pool.eviction_order(&order);
  EXPECT_THAT(order, ElementsAre(2, b, a));
  pool.check_invariants();
}

// The order only; the cost claim (O(1) amortized) is counted in free_block_queue_cost_test.cc.
TEST(FreeBlockQueueTest, LanesKeepTheirOrderThroughPushPopAndRemove) {
  FreeBlockQueue queue(8, 2);
  for (BlockId block : {3u, 1u, 4u}) queue.push_back(0, block);
  queue.push_front(0, 6);
  queue.push_back(1, 5);
  std::vector<BlockId> lane0;
  queue.append_lane(0, &lane0);
  EXPECT_THAT(lane0, ElementsAre(6, 3, 1, 4));
  queue.remove(1);  // middle
  queue.remove(6);  // head
  queue.remove(4);  // tail
  EXPECT_EQ(queue.pop_front(0), 3u);
  EXPECT_EQ(queue.size(0), 0u);
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.lane_of(5), 1u);
  EXPECT_FALSE(queue.contains(3));
  queue.check_invariants();
}

}  // namespace
}  // namespace kvsim
