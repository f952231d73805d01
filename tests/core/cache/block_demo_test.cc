// The block demo the CLI prints and the GUI animates: it runs for every eviction policy, each
// step's snapshot is consistent, and the lru run shows the events the scenario promises.
#include "core/cache/block_demo.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kvsim {
namespace {

size_t count_events(const BlockDemo& demo, CacheEventKind kind) {
  size_t n = 0;
  for (const DemoStep& step : demo.steps) {
    for (const CacheEvent& event : step.events) n += event.kind == kind ? 1 : 0;
  }
  return n;
}

TEST(BlockDemoTest, RunsForEveryPolicyWithConsistentSnapshots) {
  for (const std::string& name : eviction_names()) {
    auto demo = run_block_demo(*parse_eviction(name));
    ASSERT_TRUE(demo.is_ok()) << demo.status().message();
    ASSERT_EQ(demo->steps.size(), 11u);
    for (const DemoStep& step : demo->steps) {
      uint32_t held = 0;
      for (const DemoRequest& request : step.requests) {
        for (BlockId block : request.block_table) held += holds_block(block) ? 1 : 0;
      }
      uint32_t refs = 0;
      for (const DemoBlock& block : step.blocks) refs += block.ref_count;
      EXPECT_EQ(held, refs) << name << ": " << step.action;
      EXPECT_EQ(step.free_queue.size(),
                step.stats.num_cached_free_blocks + step.stats.num_empty_free_blocks);
    }
    EXPECT_EQ(count_events(*demo, CacheEventKind::kCopy), 1u) << name;
    EXPECT_EQ(demo->steps.back().stats.num_used_blocks, 0u);
  }
}

TEST(BlockDemoTest, LruRunHitsEvictsAndPreempts) {
  auto demo = run_block_demo(EvictionKind::kLru);
  ASSERT_TRUE(demo.is_ok());
  EXPECT_EQ(count_events(*demo, CacheEventKind::kHit), 4u);  // 2 on arrival, 2 on resuming
  EXPECT_EQ(count_events(*demo, CacheEventKind::kEvict), 3u);
  EXPECT_EQ(demo->steps[6].stats.num_preemptions, 1u);
  // Free-queue order: the 9 blocks never used, then request 2's tail (partial 6, cached 5).
  EXPECT_THAT(demo->steps[7].requests[3].block_table,
              ::testing::ElementsAre(8, 9, 10, 11, 12, 13, 14, 15, 16, 6, 5));
  for (const DemoStep& step : demo->steps) {
    ASSERT_EQ(step.blocks.size(), 17u);
    EXPECT_EQ(demo_block_state(step.blocks[0]), DemoBlockState::kNull);  // never handed out
    EXPECT_EQ(step.stats.num_blocks, 16u);
  }
}

}  // namespace
}  // namespace kvsim
