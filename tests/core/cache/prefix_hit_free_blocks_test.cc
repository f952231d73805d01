// PrefixHit::num_free_blocks: how many of a prefix hit's blocks are free (cached, unreferenced),
// so a scheduler can tell whether allocate_slots would succeed before calling it.
#include <gtest/gtest.h>

#include <numeric>

#include "core/cache/kv_cache_manager.h"
#include "core/cache/prefix_hash.h"

namespace kvsim {
namespace {

TEST(PrefixHitFreeBlocks, CountsOnlyTheHitBlocksNobodyHolds) {
  KvCacheConfig config;
  config.num_blocks = 8;
  config.block_size = 4;
  KvCacheManager cache = std::move(KvCacheManager::create(config)).value();
  std::vector<int32_t> prompt(13);
  std::iota(prompt.begin(), prompt.end(), 100);
  std::vector<BlockHash> hashes;
  hash_token_blocks(prompt, 4, &hashes);  // 3 full blocks

  cache.add_request(1, 13, hashes);
  ASSERT_TRUE(cache.allocate_slots(1, 13).has_value());
  cache.add_request(2, 13, hashes);
  PrefixHit held = cache.get_computed_blocks(2);
  EXPECT_EQ(held.num_blocks(), 3u);
  EXPECT_EQ(held.num_free_blocks, 0u);  // request 1 holds all three

  cache.free(1);
  const PrefixHit free_hit = cache.get_computed_blocks(2);
  EXPECT_EQ(free_hit.num_blocks(), 3u);
  EXPECT_EQ(free_hit.num_free_blocks, 3u);
  // new blocks (1) + free hits (3) = 4 <= 8 free: the allocation succeeds and uses exactly that.
  const uint32_t free_before = cache.num_free_blocks();
  ASSERT_TRUE(cache.allocate_slots(2, 1, free_hit).has_value());
  EXPECT_EQ(free_before - cache.num_free_blocks(), 1u + free_hit.num_free_blocks);
  cache.check_invariants();
}

}  // namespace
}  // namespace kvsim
