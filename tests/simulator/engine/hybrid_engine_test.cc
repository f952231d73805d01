// The engine over a hybrid model's KV cache groups (core/cache/kv_cache_coordinator.h): a full and
// a sliding-window group sharing one pool, under load. After every iteration the pool and table
// invariants hold, no sliding-window table holds more blocks than the window and a chunk need,
// and the run preempts, hits shared prefixes and ends with every block free.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/base/checked_math.h"
#include "simulator/engine/engine.h"
#include "simulator/scenario/scenario.h"
#include "simulator/setup/engine_setup.h"
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
  // Requests are ids 0 .. num_requests-1.
  HybridChecker(const Engine* engine, uint64_t max_num_batched_tokens, RequestId num_requests)
      : engine_(engine), max_batched_(max_num_batched_tokens), num_requests_(num_requests) {}

  void on_iteration(const IterationRecord&, const EngineSnapshot&) override {
    const KvCacheCoordinator& cache = engine_->cache();
    cache.check_invariants();
    for (size_t g = 0; g < cache.num_groups(); ++g) {
      const CacheGroupSpec& spec = cache.group_spec(g);
      if (spec.kind != LayerKind::kSlidingWindow) continue;
      // vLLM's bound for a sliding group (core/model/kv_groups.h step 5): the window, the largest
      // chunk and one block for a window that does not start on a boundary.
      const uint64_t bound =
          ceil_div(spec.window_tokens - 1 + max_batched_, uint64_t{cache.block_size()}) + 1;
      for (RequestId id = 0; id < num_requests_; ++id) {
        if (!cache.group(g).has_request(id)) continue;
        const auto table = cache.group(g).block_table(id);
        const auto held =
            static_cast<uint64_t>(std::count_if(table.begin(), table.end(), holds_block));
        max_window_blocks = std::max(max_window_blocks, held);
        ASSERT_LE(held, bound) << "request " << id << ", group " << g;
      }
    }
  }
  uint64_t max_window_blocks = 0;

 private:
  const Engine* engine_;
  uint64_t max_batched_;
  RequestId num_requests_;
};

// Requests in three prefix groups, prompts of `prompt` tokens and more, `output` and more.
std::vector<RequestSpec> workload(uint32_t count, uint32_t prompt, uint32_t output) {
  std::vector<RequestSpec> requests;
  for (uint32_t i = 0; i < count; ++i) {
    RequestSpec r;
    r.id = i;
    r.arrival_ns = static_cast<int64_t>(i) * 2'000'000;
    r.prompt_tokens = prompt + (i % 7) * (prompt / 3);
    r.output_tokens = output + (i % 5) * (output / 3);
    r.prefix_group = i % 3;  // three shared system prompts
    r.prefix_tokens = prompt - prompt / 8;
    requests.push_back(r);
  }
  return requests;
}

struct HybridRun {
  EngineStats stats;
  KvCacheStats cache;
  uint64_t max_window_blocks = 0;
};

// Runs the requests, checking the cache after every iteration; the pool must end empty.
HybridRun run_checked(const EngineConfig& config, std::vector<RequestSpec> requests) {
  const RequestId num_requests = requests.size();
  auto engine = Engine::create(config, std::make_unique<FixedCostModel>(1'000'000, 1'000),
                               std::make_unique<VectorSource>(std::move(requests)));
  EXPECT_TRUE(engine.is_ok()) << engine.status().message();
  if (!engine.is_ok()) return {};
  HybridChecker checker(engine->get(), config.scheduler.max_num_batched_tokens, num_requests);
  (*engine)->add_observer(&checker);
  EXPECT_TRUE((*engine)->run().is_ok());
  EXPECT_EQ((*engine)->cache().pool().num_used_blocks(), 0u);
  (*engine)->cache().check_invariants();
  return HybridRun{(*engine)->stats(), (*engine)->cache().stats(), checker.max_window_blocks};
}

TEST(HybridEngineTest, GroupsShareThePoolAndTheWindowFreesBlocks) {
  EngineConfig config;
  config.cache.num_blocks = 400;
  config.cache.block_size = kBlock;
  config.cache_groups = {{LayerKind::kFull, 0}, {LayerKind::kSlidingWindow, kWindow}};
  config.scheduler.max_num_batched_tokens = kChunk;
  config.scheduler.max_num_seqs = 16;
  const HybridRun run = run_checked(config, workload(60, 300, 200));
  EXPECT_EQ(run.stats.completed, 60u);
  EXPECT_GT(run.stats.preemptions_recompute, 0u);  // 399 blocks: the load does not fit at once
  EXPECT_GT(run.cache.num_prefix_hit_tokens, 0u);  // the shared prefixes hit in both groups
  EXPECT_GT(run.cache.num_trimmed_blocks, 0u);
  EXPECT_GE(run.max_window_blocks, uint64_t{kWindow / kBlock});
}

// The catalogue's hybrids as the scenario sets them up (their groups from the capacity plan),
// on a pool small enough to fill.
class HybridPresetTest : public ::testing::TestWithParam<const char*> {};

TEST_P(HybridPresetTest, RunsKeepThePoolInvariantsAndTheWindowBound) {
  auto scenario = load_scenario("default", {std::string("model=") + GetParam(), "device=h100-sxm",
                                            "num_devices=2", "cache.num_blocks_override=2500"});
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  auto setup = prepare_engine_setup(*scenario);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  EXPECT_GT(setup->engine.cache_groups.size(), 1u);
  const HybridRun run = run_checked(setup->engine, workload(40, 1500, 300));
  EXPECT_EQ(run.stats.completed, 40u);
  EXPECT_GT(run.cache.num_trimmed_blocks, 0u);
  EXPECT_GT(run.stats.kv_blocks_peak, 2499u * 8 / 10);  // the pool was the limit
}

INSTANTIATE_TEST_SUITE_P(Catalogue, HybridPresetTest,
                         ::testing::Values("gemma-3-27b-it", "gpt-oss-20b"));

}  // namespace
}  // namespace kvsim::sim
