// The engine over a hybrid model's KV cache groups (core/kv_cache_coordinator.h): a full and a
// sliding-window group sharing one pool, under load. After every iteration the pool and table
// invariants hold, no sliding-window table holds more blocks than the window and a chunk need,
// and the run preempts, hits shared prefixes and ends with every block free.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/checked_math.h"
#include "simulator/engine/engine.h"
#include "tests/simulator/sim_test_util.h"

namespace kvsim::sim {
namespace {

using testing::FixedCostModel;
using testing::VectorSource;

constexpr uint32_t kBlock = 16;
constexpr uint32_t kWindow = 64;
constexpr uint32_t kChunk = 256;

class HybridChecker final : public SimObserver {
 public:
  void on_iteration(const IterationRecord&, const EngineSnapshot&) override {
    ++iterations;
    const KvCacheCoordinator& cache = engine->cache();
    cache.check_invariants();
    // vLLM's bound for a sliding group (core/kv_groups.h step 5): the window, the largest
    // chunk and one block for a window that does not start on a boundary.
    const uint64_t bound = ceil_div(uint64_t{kWindow - 1 + kChunk}, uint64_t{kBlock}) + 1;
    for (RequestId id : ids) {
      if (!cache.group(0).has_request(id)) continue;
      const auto table = cache.group(1).block_table(id);
      const auto held = std::count_if(table.begin(), table.end(), holds_block);
      max_window_blocks = std::max<uint64_t>(max_window_blocks, static_cast<uint64_t>(held));
      ASSERT_LE(static_cast<uint64_t>(held), bound) << "request " << id;
    }
  }
  const Engine* engine = nullptr;
  std::vector<RequestId> ids;
  uint64_t iterations = 0;
  uint64_t max_window_blocks = 0;
};

TEST(HybridEngineTest, GroupsShareThePoolAndTheWindowFreesBlocks) {
  EngineConfig config;
  config.cache.num_blocks = 400;
  config.cache.block_size = kBlock;
  config.cache_groups = {{LayerKind::kFull, 0}, {LayerKind::kSlidingWindow, kWindow}};
  config.scheduler.max_num_batched_tokens = kChunk;
  config.scheduler.max_num_seqs = 16;
  std::vector<RequestSpec> requests;
  for (uint64_t i = 0; i < 60; ++i) {
    RequestSpec r;
    r.id = i;
    r.arrival_ns = static_cast<int64_t>(i) * 2'000'000;
    r.prompt_tokens = 300 + static_cast<uint32_t>(i % 7) * 90;
    r.output_tokens = 200 + static_cast<uint32_t>(i % 5) * 60;
    r.prefix_group = i % 3;  // three shared system prompts
    r.prefix_tokens = 256;
    requests.push_back(r);
  }
  auto engine = Engine::create(config, std::make_unique<FixedCostModel>(1'000'000, 1'000),
                               std::make_unique<VectorSource>(requests));
  ASSERT_TRUE(engine.is_ok()) << engine.status().message();
  HybridChecker checker;
  checker.engine = engine->get();
  for (const RequestSpec& r : requests) checker.ids.push_back(r.id);
  (*engine)->add_observer(&checker);
  ASSERT_TRUE((*engine)->run().is_ok());
  const EngineStats& stats = (*engine)->stats();
  EXPECT_EQ(stats.completed, requests.size());
  EXPECT_GT(stats.preemptions_recompute, 0u);  // 399 blocks: the load does not fit at once
  const KvCacheStats cache = (*engine)->cache().stats();
  EXPECT_GT(cache.num_prefix_hit_tokens, 0u);  // the shared prefixes hit in both groups
  EXPECT_GT(cache.num_trimmed_blocks, 0u);
  EXPECT_GE(checker.max_window_blocks, uint64_t{kWindow / kBlock});
  EXPECT_EQ((*engine)->cache().pool().num_used_blocks(), 0u);
  (*engine)->cache().check_invariants();
}

}  // namespace
}  // namespace kvsim::sim
