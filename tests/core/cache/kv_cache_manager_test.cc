// KvCacheManager on tiny pools (block size 4): exact block tables, ref counts and free-queue
// order after each step, run against every eviction policy. Block 0 is the null block: a pool
// of N usable blocks has N + 1 blocks and lends out ids 1 .. N.
#include "core/cache/kv_cache_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>

#include "core/base/units.h"
#include "core/cache/prefix_hash.h"
#include "core/engine/capacity.h"
#include "core/model/load_spec.h"
#include "tests/core/cache/policy_text.h"

namespace kvsim {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

constexpr BlockId N = kNullBlock;
constexpr BlockId S = kSwappedBlock;

KvCacheManager make_manager(std::string_view eviction, uint32_t num_usable_blocks,
                            uint32_t num_host_blocks = 0,
                            std::shared_ptr<const RetentionPolicy> retention = nullptr) {
  KvCacheConfig config;
  config.num_blocks = num_usable_blocks + 1;  // + the null block
  config.block_size = 4;
  config.eviction = eviction_of(eviction);
  config.num_host_blocks = num_host_blocks;
  config.bytes_per_block = 1000;
  config.retention = std::move(retention);
  return std::move(KvCacheManager::create(config)).value();
}

std::vector<int32_t> tokens(int32_t first, int count) {
  std::vector<int32_t> out(count);
  std::iota(out.begin(), out.end(), first);
  return out;
}

std::vector<BlockHash> hashes(const std::vector<int32_t>& token_ids) {
  std::vector<BlockHash> out;
  hash_token_blocks(token_ids, 4, &out);
  return out;
}

std::vector<BlockId> order(const KvCacheManager& cache) {
  std::vector<BlockId> out;
  cache.pool().eviction_order(&out);
  return out;
}

std::vector<BlockId> table(const KvCacheManager& cache, RequestId id) {
  const std::span<const BlockId> blocks = cache.block_table(id);
  return {blocks.begin(), blocks.end()};
}

// Adds a request with its token hashes, takes its prefix hit and allocates the rest.
std::optional<SlotAllocation> admit(KvCacheManager& cache, RequestId id,
                                    const std::vector<int32_t>& prompt) {
  cache.add_request(id, prompt.size(), hashes(prompt));
  const PrefixHit hit = cache.get_computed_blocks(id);
  return cache.allocate_slots(id, prompt.size() - hit.num_tokens, hit);
}

struct ManagerExpectation {
  const char* name;
  std::vector<BlockId> second_table;      // request 2 (shares 8 prefix tokens with 1)
  std::vector<BlockId> order_both_freed;  // after freeing 1 then 2
  std::vector<BlockId> third_table;       // request 3 = request 1's prompt again
  std::vector<BlockId> swapped_in_table;  // request 3 after swap out, other work, swap in
  uint64_t swap_in_bytes;
};

// lru is vLLM's single queue: the order blocks were freed, cached or not (so on swap-in it
// reuses cached block 7 although partial block 3, freed later, is empty); lfu and fifo reuse
// empty blocks (3 and 5, partial) first.
const ManagerExpectation kManagerExpectations[] = {
    {"lru", {1, 2, 4, 5}, {6, 7, 8, 9, 10, 3, 5, 4, 2, 1}, {1, 2, 6}, {1, 2, 7}, 1000},
    {"lfu", {1, 2, 4, 5}, {6, 7, 8, 9, 10, 3, 5, 4, 2, 1}, {1, 2, 6}, {1, 2, 3}, 1000},
    {"fifo", {1, 2, 4, 5}, {6, 7, 8, 9, 10, 3, 5, 1, 2, 4}, {1, 2, 6}, {1, 2, 3}, 1000},
    {"none", {4, 5, 6, 7}, {8, 9, 10, 3, 2, 1, 7, 6, 5, 4}, {8, 9, 10}, {7, 6, 5}, 3000},
};

void PrintTo(const ManagerExpectation& expectation, std::ostream* out) { *out << expectation.name; }

class KvCacheManagerPolicyTest : public ::testing::TestWithParam<ManagerExpectation> {
 protected:
  bool caching() const { return std::string(GetParam().name) != "none"; }
};

TEST_P(KvCacheManagerPolicyTest, SharedPrefixFreeTailFirstAndHitAgain) {
  const ManagerExpectation& expect = GetParam();
  KvCacheManager cache = make_manager(expect.name, 10);
  const std::vector<int32_t> prompt1 = tokens(100, 10);
  std::vector<int32_t> prompt2(prompt1.begin(), prompt1.begin() + 8);
  for (int32_t t : tokens(500, 5)) prompt2.push_back(t);

  ASSERT_TRUE(admit(cache, 1, prompt1).has_value());
  EXPECT_THAT(table(cache, 1), ElementsAre(1, 2, 3));
  EXPECT_EQ(cache.pool().block_hash(1),
            caching() ? std::optional(hashes(prompt1)[0]) : std::nullopt);
  EXPECT_FALSE(cache.pool().block_hash(3).has_value());  // partial: never cached

  cache.add_request(2, prompt2.size(), hashes(prompt2));
  const PrefixHit hit = cache.get_computed_blocks(2);
  EXPECT_EQ(hit.num_blocks(), caching() ? 2u : 0u);
  EXPECT_EQ(hit.num_tokens, caching() ? 8u : 0u);
  const auto allocation = cache.allocate_slots(2, prompt2.size() - hit.num_tokens, hit);
  ASSERT_TRUE(allocation.has_value());
  EXPECT_EQ(allocation->num_hit_blocks, hit.num_blocks());
  EXPECT_EQ(allocation->num_new_blocks, caching() ? 2u : 4u);
  EXPECT_THAT(table(cache, 2), ElementsAreArray(expect.second_table));
  EXPECT_EQ(cache.pool().ref_count(1), caching() ? 2u : 1u);
  cache.check_invariants();

  cache.free(1);
  cache.check_invariants();
  cache.free(2);
  EXPECT_THAT(order(cache), ElementsAreArray(expect.order_both_freed));
  EXPECT_EQ(cache.stats().num_cached_free_blocks, caching() ? 3u : 0u);
  cache.check_invariants();

  ASSERT_TRUE(admit(cache, 3, prompt1).has_value());
  EXPECT_THAT(table(cache, 3), ElementsAreArray(expect.third_table));
  const KvCacheStats stats = cache.stats();
  EXPECT_EQ(stats.num_prefix_hit_tokens, caching() ? 16u : 0u);
  EXPECT_EQ(stats.num_prefix_query_tokens, caching() ? 33u : 0u);
  EXPECT_EQ(stats.num_evictions, 0u);
  EXPECT_EQ(stats.num_used_blocks + stats.num_cached_free_blocks + stats.num_empty_free_blocks,
            10u);
  cache.check_invariants();
}

TEST_P(KvCacheManagerPolicyTest, AllocationIsAllOrNothing) {
  KvCacheManager cache = make_manager(GetParam().name, 4);
  ASSERT_TRUE(admit(cache, 1, tokens(0, 12)).has_value());
  const std::vector<BlockId> before = order(cache);

  cache.add_request(2, 8, {});
  EXPECT_FALSE(cache.allocate_slots(2, 8).has_value());  // 2 blocks, 1 free
  EXPECT_EQ(cache.num_tokens(2), 0u);
  EXPECT_TRUE(cache.block_table(2).empty());
  EXPECT_EQ(order(cache), before);
  EXPECT_EQ(cache.num_free_blocks(), 1u);
  ASSERT_TRUE(cache.allocate_slots(2, 4).has_value());
  EXPECT_THAT(table(cache, 2), ElementsAre(4));

  // Request 1 holds 12 tokens in 3 full blocks: a decode token needs a 4th block.
  EXPECT_FALSE(cache.allocate_slots(1, 1).has_value());
  EXPECT_EQ(cache.num_tokens(1), 12u);
  EXPECT_THAT(table(cache, 1), ElementsAre(1, 2, 3));
  EXPECT_DOUBLE_EQ(cache.usage(), 1.0);
  cache.check_invariants();
}

TEST_P(KvCacheManagerPolicyTest, ForkSharesBlocksAndCopiesOnWrite) {
  KvCacheManager cache = make_manager(GetParam().name, 8);
  ASSERT_TRUE(admit(cache, 1, tokens(0, 6)).has_value());  // [1 full, 2 with 2 tokens]
  cache.fork(1, 2);
  EXPECT_THAT(table(cache, 2), ElementsAre(1, 2));
  EXPECT_EQ(cache.pool().ref_count(1), 2u);
  EXPECT_EQ(cache.pool().ref_count(2), 2u);
  cache.check_invariants();

  // The child writes its 7th token into shared block 2: it gets a copy (block 3).
  const auto child = cache.allocate_slots(2, 1);
  ASSERT_TRUE(child.has_value());
  ASSERT_TRUE(child->copy.has_value());
  EXPECT_EQ(child->copy->src, 2u);
  EXPECT_EQ(child->copy->dst, 3u);
  EXPECT_EQ(child->copy->num_tokens, 2u);
  EXPECT_THAT(table(cache, 2), ElementsAre(1, 3));
  EXPECT_EQ(cache.pool().ref_count(2), 1u);

  // The parent now owns block 2 alone: no copy.
  const auto parent = cache.allocate_slots(1, 1);
  ASSERT_TRUE(parent.has_value());
  EXPECT_FALSE(parent->copy.has_value());
  EXPECT_THAT(table(cache, 1), ElementsAre(1, 2));

  // Forking at a block boundary shares only full blocks: appending needs no copy.
  ASSERT_TRUE(cache.allocate_slots(1, 1).has_value());  // 8 tokens
  cache.fork(1, 3);
  const auto grandchild = cache.allocate_slots(3, 1);
  ASSERT_TRUE(grandchild.has_value());
  EXPECT_FALSE(grandchild->copy.has_value());
  EXPECT_THAT(table(cache, 3), ElementsAre(1, 2, 4));
  EXPECT_EQ(cache.stats().num_cow_copies, 1u);
  cache.check_invariants();

  for (RequestId id : {1, 2, 3}) cache.free(id);
  EXPECT_EQ(cache.stats().num_used_blocks, 0u);
  cache.check_invariants();
}

TEST_P(KvCacheManagerPolicyTest, SwapOutAndInCountsBytesAndReusesCachedBlocks) {
  const ManagerExpectation& expect = GetParam();
  KvCacheManager cache = make_manager(expect.name, 10, /*num_host_blocks=*/4);
  // Fill blocks 1..7 and free 4..7 so the free queue is the same for every policy's test.
  ASSERT_TRUE(admit(cache, 1, tokens(0, 10)).has_value());   // 1 2 3
  ASSERT_TRUE(admit(cache, 2, tokens(50, 16)).has_value());  // 4 5 6 7
  cache.free(2);
  EXPECT_EQ(cache.swap_out(1), std::optional<uint64_t>(3000));
  EXPECT_THAT(table(cache, 1), ElementsAre(S, S, S));
  EXPECT_TRUE(cache.is_swapped(1));
  EXPECT_EQ(cache.stats().num_host_used_blocks, 3u);
  cache.check_invariants();

  // Other work takes 3 blocks; then request 1 comes back.
  ASSERT_TRUE(admit(cache, 3, tokens(900, 12)).has_value());
  const auto bytes = cache.swap_in(1);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(*bytes, expect.swap_in_bytes);
  EXPECT_THAT(table(cache, 1), ElementsAreArray(expect.swapped_in_table));
  EXPECT_EQ(cache.stats().num_host_used_blocks, 0u);
  EXPECT_EQ(cache.stats().swap_out_bytes, 3000u);
  EXPECT_EQ(cache.stats().num_swap_in_reused_blocks, caching() ? 2u : 0u);
  cache.check_invariants();
}

INSTANTIATE_TEST_SUITE_P(EveryPolicy, KvCacheManagerPolicyTest,
                         ::testing::ValuesIn(kManagerExpectations),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

// The recomputed last block is cached as a second copy of block 2's content (vLLM does not
// de-duplicate): block 2 keeps answering lookups; once it is evicted, block 3 does.
TEST(KvCacheManagerTest, WholePromptHitStillComputesTheLastBlockAndCachesACopy) {
  KvCacheManager cache = make_manager("lru", 4);
  const std::vector<BlockHash> prompt = hashes(tokens(0, 8));
  ASSERT_TRUE(admit(cache, 1, tokens(0, 8)).has_value());
  cache.add_request(2, 8, prompt);
  const PrefixHit hit = cache.get_computed_blocks(2);
  EXPECT_EQ(hit.num_blocks(), 1u);  // (8 - 1) / 4: the second block is recomputed
  EXPECT_EQ(hit.num_tokens, 4u);
  ASSERT_TRUE(cache.allocate_slots(2, 4, hit).has_value());
  EXPECT_THAT(table(cache, 2), ElementsAre(1, 3));
  EXPECT_EQ(cache.pool().block_hash(3), prompt[1]);
  EXPECT_EQ(cache.pool().find(prompt[1]), std::optional<BlockId>(2));  // the earliest copy
  EXPECT_EQ(cache.pool().num_cached_blocks(), 3u);
  cache.free(1);  // frees block 2 (block 1 is shared): free queue 4 2
  cache.add_request(3, 8, {});
  ASSERT_TRUE(cache.allocate_slots(3, 8).has_value());  // takes 4, then evicts block 2
  EXPECT_THAT(table(cache, 3), ElementsAre(4, 2));
  EXPECT_EQ(cache.stats().num_evictions, 1u);
  EXPECT_EQ(cache.pool().find(prompt[1]), std::optional<BlockId>(3));  // the copy took over
  cache.free(2);
  cache.add_request(4, 9, hashes(tokens(0, 9)));
  EXPECT_THAT(cache.get_computed_blocks(4).blocks, ElementsAre(1, 3));
  cache.check_invariants();
}

TEST(KvCacheManagerTest, SwapFailsWithoutChangeWhenATierIsFull) {
  KvCacheManager cache = make_manager("lru", 4, /*num_host_blocks=*/2);
  ASSERT_TRUE(admit(cache, 1, tokens(0, 12)).has_value());
  EXPECT_FALSE(cache.swap_out(1).has_value());  // 3 blocks, host holds 2
  EXPECT_FALSE(cache.is_swapped(1));
  EXPECT_THAT(table(cache, 1), ElementsAre(1, 2, 3));
  cache.preempt(1);
  ASSERT_TRUE(admit(cache, 2, tokens(0, 4)).has_value());  // swap_out needs room: 1 block
  ASSERT_TRUE(cache.swap_out(2).has_value());
  ASSERT_TRUE(admit(cache, 3, tokens(70, 16)).has_value());  // the device is full
  EXPECT_FALSE(cache.swap_in(2).has_value());
  EXPECT_TRUE(cache.is_swapped(2));
  EXPECT_EQ(cache.stats().num_host_used_blocks, 1u);
  cache.free(2);  // frees the host copy
  EXPECT_EQ(cache.stats().num_host_used_blocks, 0u);
  cache.check_invariants();
}

TEST(KvCacheManagerTest, PreemptKeepsTheRequestAndResumesFromItsCachedPrefix) {
  KvCacheManager cache = make_manager("lru", 8);
  const std::vector<int32_t> all = tokens(0, 13);
  const std::vector<BlockHash> all_hashes = hashes(all);
  cache.add_request(1, 10, std::span(all_hashes).first(2));
  ASSERT_TRUE(cache.allocate_slots(1, 10).has_value());
  ASSERT_TRUE(cache.allocate_slots(1, 3).has_value());  // decode to 13 tokens
  cache.append_block_hashes(1, std::span(all_hashes).subspan(2, 1));
  EXPECT_EQ(cache.pool().block_hash(3), all_hashes[2]);
  cache.preempt(1);
  EXPECT_EQ(cache.num_tokens(1), 0u);
  EXPECT_TRUE(cache.block_table(1).empty());
  EXPECT_THAT(order(cache), ElementsAre(5, 6, 7, 8, 4, 3, 2, 1));
  const PrefixHit hit = cache.get_computed_blocks(1);
  EXPECT_EQ(hit.num_blocks(), 3u);  // (13 - 1) / 4
  ASSERT_TRUE(cache.allocate_slots(1, 1, hit).has_value());
  EXPECT_THAT(table(cache, 1), ElementsAre(1, 2, 3, 5));
  EXPECT_EQ(cache.stats().num_preemptions, 1u);
  cache.check_invariants();
}

// vLLM's num_lookahead_tokens: blocks for the draft tokens are held but not counted as
// slots, so only blocks full of computed tokens are cached, and later steps use them first.
TEST(KvCacheManagerTest, LookaheadSlotsAreHeldButNeitherCountedNorCached) {
  KvCacheManager cache = make_manager("lru", 8);
  const std::vector<int32_t> prompt = tokens(0, 6);
  ASSERT_TRUE(admit(cache, 1, prompt).has_value());  // 6 tokens: blocks 1 2
  const std::optional<SlotAllocation> step = cache.allocate_slots(1, 1, PrefixHit{}, 5);
  ASSERT_TRUE(step.has_value());  // 7 held + 5 lookahead = 12 slots: 3 blocks
  EXPECT_EQ(step->num_new_blocks, 1u);
  EXPECT_EQ(cache.num_tokens(1), 7u);
  EXPECT_THAT(table(cache, 1), ElementsAre(1, 2, 3));
  const std::vector<BlockHash> next = {hashes(tokens(0, 8)).back()};  // block 2's content
  cache.append_block_hashes(1, next);
  EXPECT_FALSE(cache.pool().block_hash(2).has_value());  // 7 computed: block 2 not full
  ASSERT_TRUE(cache.allocate_slots(1, 1, PrefixHit{}, 2).has_value());  // 8 + 2: no new block
  EXPECT_THAT(table(cache, 1), ElementsAre(1, 2, 3));
  EXPECT_TRUE(cache.pool().block_hash(2).has_value());  // now full of computed tokens
  EXPECT_EQ(cache.pool().num_free_blocks(), 5u);
  EXPECT_FALSE(cache.allocate_slots(1, 1, PrefixHit{}, 28).has_value());  // 37 slots: 10 blocks
  EXPECT_EQ(cache.num_tokens(1), 8u);
  cache.check_invariants();
}

TEST(KvCacheManagerTest, EvictionOfACachedBlockIsCounted) {
  KvCacheManager cache = make_manager("lru", 4);
  ASSERT_TRUE(admit(cache, 1, tokens(0, 8)).has_value());  // 1 2 cached
  cache.free(1);
  ASSERT_TRUE(admit(cache, 2, tokens(50, 12)).has_value());  // 3 4 never used, then evicts 2
  EXPECT_THAT(table(cache, 2), ElementsAre(3, 4, 2));
  EXPECT_EQ(cache.stats().num_evictions, 1u);
  cache.add_request(3, 8, hashes(tokens(0, 8)));
  EXPECT_EQ(cache.get_computed_blocks(3).num_blocks(), 1u);  // block 1 is still cached
  cache.check_invariants();
}

TEST(KvCacheManagerTest, WindowRetentionDropsBlocksAsDecodingProceeds) {
  KvCacheManager cache = make_manager("lru", 8, 0, retention_of("window:6"));
  cache.add_request(1, 4, {});
  ASSERT_TRUE(cache.allocate_slots(1, 4).has_value());
  // Trims look at the tokens held before each call: block k goes once the window of the
  // last 6 of them starts past it, i.e. when tokens held >= 4k + 4 + 6.
  std::vector<std::vector<BlockId>> tables;
  for (int step = 0; step < 12; ++step) {
    ASSERT_TRUE(cache.allocate_slots(1, 1).has_value());
    tables.push_back(table(cache, 1));
    cache.check_invariants();
  }
  // Step k brings the sequence to 5 + k tokens and trims over the 4 + k held before it.
  EXPECT_THAT(tables[5], ElementsAre(1, 2, 3));      // 9 held: keep [3, 9), entry 0 stays
  EXPECT_THAT(tables[6], ElementsAre(N, 2, 3));      // 10 held: keep [4, 10), entry 0 goes
  EXPECT_THAT(tables[9], ElementsAre(N, 2, 3, 4));   // 13 held: keep [7, 13)
  EXPECT_THAT(tables[10], ElementsAre(N, N, 3, 4));  // 14 held: keep [8, 14), entry 1 goes
  EXPECT_EQ(cache.stats().num_trimmed_blocks, 2u);
  EXPECT_EQ(cache.pool().num_used_blocks(), 2u);  // 16 tokens, window 6: two blocks
}

TEST(KvCacheManagerTest, SinkRetentionKeepsTheFirstBlock) {
  KvCacheManager cache = make_manager("lru", 8, 0, retention_of("sink:2,4"));
  cache.add_request(1, 20, {});
  ASSERT_TRUE(cache.allocate_slots(1, 20).has_value());
  ASSERT_TRUE(cache.allocate_slots(1, 1).has_value());  // trims over 20 held: keep [0,2) [16,20)
  EXPECT_THAT(table(cache, 1), ElementsAre(1, N, N, N, 5, 6));
  cache.check_invariants();
}

TEST(KvCacheManagerTest, AutomaticTrimCanMakeRoomForTheStep) {
  KvCacheManager cache = make_manager("lru", 3, 0, retention_of("window:4"));
  cache.add_request(1, 12, {});
  ASSERT_TRUE(cache.allocate_slots(1, 12).has_value());  // all 3 blocks
  // The 13th token needs a 4th block; the window over 12 tokens frees blocks 1 and 2 first.
  const auto allocation = cache.allocate_slots(1, 1);
  ASSERT_TRUE(allocation.has_value());
  EXPECT_EQ(allocation->num_trimmed_blocks, 2u);
  EXPECT_THAT(table(cache, 1), ElementsAre(N, N, 3, 2));
  cache.check_invariants();
}

TEST(KvCacheManagerTest, HeavyHitterTrimWithScoresKeepsBlocksHoldingHeavyHitters) {
  KvCacheManager cache = make_manager("lru", 8);
  cache.add_request(1, 20, {});
  ASSERT_TRUE(cache.allocate_slots(1, 20).has_value());
  std::vector<float> scores(20, 0.0f);
  scores[9] = 5.0f;  // entry 2 (block 3) holds the heavy hitter
  const auto h2o = retention_of("h2o:1,4");
  EXPECT_EQ(cache.trim(1, *h2o, scores), 3u);  // keep 9 and [16, 20): entries 2 and 4
  EXPECT_THAT(table(cache, 1), ElementsAre(N, N, 3, N, 5));
  // Without scores h2o keeps the first H and the last R positions (the simulator's case),
  // so the heavy hitter's entry goes too.
  EXPECT_EQ(cache.trim(1, *h2o), 1u);
  EXPECT_THAT(table(cache, 1), ElementsAre(N, N, N, N, 5));
  cache.check_invariants();
}

TEST(KvCacheManagerTest, RetentionPoliciesDescribeTheirScoreFreeShape) {
  auto shape = [](const char* spec) {
    const auto policy = retention_of(spec);
    return std::make_pair(policy->sink_tokens(), policy->window_tokens());
  };
  EXPECT_EQ(shape("full"), std::make_pair(uint64_t{0}, std::optional<uint64_t>()));
  EXPECT_EQ(shape("window:8"), std::make_pair(uint64_t{0}, std::optional<uint64_t>(8)));
  EXPECT_EQ(shape("sink:4,60"), std::make_pair(uint64_t{4}, std::optional<uint64_t>(60)));
  EXPECT_EQ(shape("h2o:32,16"), std::make_pair(uint64_t{32}, std::optional<uint64_t>(16)));
}

TEST(KvCacheManagerTest, BadConfigurationsAreStatusErrors) {
  KvCacheConfig config;
  config.num_blocks = 0;
  EXPECT_THAT(KvCacheManager::create(config).status().message(), HasSubstr("num_blocks"));
  config.num_blocks = 1;  // the null block alone
  EXPECT_THAT(KvCacheManager::create(config).status().message(), HasSubstr("null block"));
  config.num_blocks = 4;
  config.block_size = 0;
  EXPECT_THAT(KvCacheManager::create(config).status().message(), HasSubstr("block_size"));
}

// The pool is sized and swaps are costed from core/engine/capacity.h, the one place that knows
// bytes per block: int4 storage with group scales gives more, smaller blocks than fp16.
TEST(KvCacheManagerTest, CapacityDecidesBlockCountAndSwapBytes) {
  const auto model = load_model("llama3-8b");
  const auto device = load_device("a100-80g");
  ASSERT_TRUE(model.is_ok() && device.is_ok());
  std::vector<uint64_t> bytes_per_block;
  std::vector<uint64_t> num_blocks;
  for (const KvStorage storage : {KvStorage{DType::kFp16, 0}, KvStorage{DType::kInt4, 32}}) {
    CapacityQuery query;
    query.kv = storage;
    query.kv_budget_bytes = 40 * kGiB;  // the engine's budget is engine_memory_test.cc's
    const auto capacity = compute_capacity(*model, &*device, query);
    ASSERT_TRUE(capacity.is_ok()) << capacity.status().message();
    KvCacheConfig config;
    config.num_blocks = static_cast<uint32_t>(*capacity->num_blocks);
    config.block_size = capacity->block_size;
    config.bytes_per_block = capacity->kv_bytes_per_block;
    config.num_host_blocks = 4;
    KvCacheManager cache = std::move(KvCacheManager::create(config)).value();
    cache.add_request(1, 3 * config.block_size, {});
    ASSERT_TRUE(cache.allocate_slots(1, 3 * config.block_size).has_value());
    EXPECT_EQ(cache.swap_out(1), 3 * capacity->kv_bytes_per_block);
    bytes_per_block.push_back(capacity->kv_bytes_per_block);
    num_blocks.push_back(config.num_blocks);
  }
  EXPECT_LT(bytes_per_block[1] * 3, bytes_per_block[0]);  // int4 + scales: < 1/3 of fp16
  EXPECT_GT(num_blocks[1], 3 * num_blocks[0]);
}

TEST(KvCacheManagerTest, EventLogRecordsHitsCopiesAndEvictions) {
  KvCacheManager cache = make_manager("lru", 3);
  std::vector<CacheEvent> events;
  cache.set_event_log(&events);
  ASSERT_TRUE(admit(cache, 1, tokens(0, 6)).has_value());
  cache.fork(1, 2);
  ASSERT_TRUE(cache.allocate_slots(2, 1).has_value());
  std::vector<std::string> kinds;
  for (const CacheEvent& event : events) kinds.emplace_back(cache_event_name(event.kind));
  EXPECT_THAT(kinds, ElementsAre("allocate", "allocate", "cache", "copy"));
  EXPECT_EQ(events[3].block, 2u);
  EXPECT_EQ(events[3].other_block, 3u);
}

}  // namespace
}  // namespace kvsim
