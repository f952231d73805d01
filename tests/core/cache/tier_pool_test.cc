// TierPool: a lower KV tier on the BlockPool + EvictionPolicy machinery — exact eviction order
// per policy on tiny tiers, demotion down a chain of tiers, refreshes, the conservation of
// blocks and the pool's invariants after every operation.
#include "core/cache/tier_pool.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/core/cache/eviction_recorder.h"

namespace kvsim {
namespace {

std::unique_ptr<TierPool> tier(uint32_t slots, EvictionKind eviction = EvictionKind::kLru) {
  auto made = TierPool::create("dram", slots, eviction);
  EXPECT_TRUE(made.is_ok()) << made.status().message();
  return std::move(*made);
}

TEST(TierPool, LruEvictsTheLeastRecentlyStoredOrHitAndSendsItDown) {
  auto dram = tier(3);
  EvictionRecorder below;
  dram->set_next(&below);
  for (BlockHash h : {1, 2, 3}) dram->store(h);
  EXPECT_EQ(dram->num_resident(), 3u);
  EXPECT_TRUE(below.evicted.empty());
  dram->store(4);  // full: the oldest, 1, goes down
  EXPECT_EQ(below.evicted, std::vector<BlockHash>{1});
  dram->hit(2);    // 2 becomes the most recent
  dram->store(5);  // evicts 3, not 2
  EXPECT_EQ(below.evicted, (std::vector<BlockHash>{1, 3}));
  dram->store(2);  // already here: refreshed, nothing evicted
  EXPECT_EQ(below.evicted.size(), 2u);
  EXPECT_TRUE(dram->contains(2) && dram->contains(4) && dram->contains(5));
  EXPECT_FALSE(dram->contains(1) || dram->contains(3));
  const TierStats s = dram->stats();
  EXPECT_EQ(s.stored, 5u);
  EXPECT_EQ(s.refreshed, 1u);
  EXPECT_EQ(s.evicted, 2u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.stored, dram->num_resident() + s.evicted);  // conservation
  dram->check_invariants();
}

TEST(TierPool, LfuKeepsTheMostHitBlocks) {
  auto dram = tier(3, EvictionKind::kLfu);
  EvictionRecorder below;
  dram->set_next(&below);
  for (BlockHash h : {1, 2, 3}) dram->store(h);
  dram->hit(1);
  dram->hit(1);
  dram->hit(3);
  dram->store(4);  // 2 has the fewest uses
  dram->store(5);  // then 4 (1 use) before 3 (2 uses)
  EXPECT_EQ(below.evicted, (std::vector<BlockHash>{2, 4}));
  dram->check_invariants();
}

TEST(TierPool, FifoIgnoresHits) {
  auto dram = tier(2, EvictionKind::kFifo);
  EvictionRecorder below;
  dram->set_next(&below);
  dram->store(1);
  dram->store(2);
  dram->hit(1);
  dram->store(3);  // 1 was stored first, hit or not
  EXPECT_EQ(below.evicted, std::vector<BlockHash>{1});
  dram->check_invariants();
}

TEST(TierPool, AChainOfTiersConservesBlocks) {
  auto dram = tier(4);
  auto ssd = tier(8);
  EvictionRecorder dropped;
  dram->set_next(ssd.get());
  ssd->set_next(&dropped);
  uint64_t offered = 0;
  for (BlockHash h = 0; h < 200; ++h) {
    dram->store(h % 37);  // what HBM would evict, with repeats
    ++offered;
    if (h % 5 == 0 && dram->contains(h % 11)) dram->hit(h % 11);
    dram->check_invariants();
    ssd->check_invariants();
    const TierStats d = dram->stats();
    const TierStats s = ssd->stats();
    ASSERT_EQ(d.stored + d.refreshed, offered);
    ASSERT_EQ(s.stored + s.refreshed, d.evicted);
    ASSERT_EQ(dropped.evicted.size(), s.evicted);
    ASSERT_LE(dram->num_resident(), dram->num_slots());
    ASSERT_LE(ssd->num_resident(), ssd->num_slots());
  }
  EXPECT_EQ(dram->num_resident(), 4u);
  EXPECT_EQ(ssd->num_resident(), 8u);
  EXPECT_GT(dropped.evicted.size(), 0u);
}

// A batch from the pool above: resident blocks are refreshed, room is made for the new ones in
// eviction order, then all take their places in arrival order. Stored one by one, 5 would have
// pushed out 1 before 1 arrived (1 stored again, evicting 2, then 6 evicting 3).
TEST(TierPool, ABatchRefreshesItsResidentBlocksBeforeMakingRoom) {
  auto dram = tier(4);
  EvictionRecorder below;
  dram->set_next(&below);
  for (BlockHash h : {1, 2, 3, 4}) dram->store(h);  // eviction order 1, 2, 3, 4
  const std::vector<BlockHash> batch = {5, 1, 6};
  dram->on_evicted(batch);
  EXPECT_EQ(below.evicted, (std::vector<BlockHash>{2, 3}));
  EXPECT_EQ(dram->stats().stored, 6u);
  EXPECT_EQ(dram->stats().refreshed, 1u);
  dram->check_invariants();
  dram->on_evicted(std::vector<BlockHash>{7, 8});  // oldest first: 4, then 5 (before 1 and 6)
  EXPECT_EQ(below.evicted, (std::vector<BlockHash>{2, 3, 4, 5}));
}

// lfu: a batch never evicts its own new blocks, though they have the fewest uses.
TEST(TierPool, AnLfuBatchDoesNotEvictItsOwnBlocks) {
  auto dram = tier(3, EvictionKind::kLfu);
  EvictionRecorder below;
  dram->set_next(&below);
  for (BlockHash h : {1, 2, 3}) dram->store(h);
  for (BlockHash h : {1, 2, 3}) dram->hit(h);  // every resident block has 2 uses
  dram->on_evicted(std::vector<BlockHash>{4, 5});
  EXPECT_EQ(below.evicted, (std::vector<BlockHash>{1, 2}));
  EXPECT_TRUE(dram->contains(4));
  EXPECT_TRUE(dram->contains(5));
  dram->check_invariants();
}

// Batches longer than the tier (or than kMaxBatch) are split: every block arrives, the tier
// stays within its slots, the blocks it evicts go below in order and are conserved.
TEST(TierPool, LongBatchesAreSplitAndConserveBlocks) {
  for (uint32_t slots : {3u, 50u, 200u}) {
    auto dram = tier(slots);
    EvictionRecorder below;
    dram->set_next(&below);
    std::vector<BlockHash> batch;
    for (BlockHash h = 0; h < 1000; ++h) batch.push_back(h);
    dram->on_evicted(batch);
    dram->check_invariants();
    EXPECT_EQ(dram->num_resident(), slots);
    ASSERT_EQ(below.evicted.size(), 1000u - slots);
    for (size_t i = 0; i < below.evicted.size(); ++i) ASSERT_EQ(below.evicted[i], i) << slots;
  }
}

TEST(TierPool, RejectsAPolicyThatCachesNothingAndNoSlots) {
  const auto none = TierPool::create("ssd", 4, EvictionKind::kNone);
  ASSERT_FALSE(none.is_ok());
  EXPECT_NE(none.status().message().find("tier 'ssd': eviction 'none' caches nothing"),
            std::string::npos)
      << none.status().message();
  EXPECT_FALSE(TierPool::create("ssd", 0, EvictionKind::kLru).is_ok());
}

}  // namespace
}  // namespace kvsim
