// Whole scenarios through run_simulation: Little's law, determinism of the files, the prefix
// hit rate on the real Mooncake trace against an independent scan, and agreement with the
// capacity planner.
#include "simulator/simulation.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/engine/capacity_plan.h"
#include "core/model/load_spec.h"
#include "tests/simulator/mooncake_scan.h"
#include "tests/test_data.h"

namespace kvsim::sim {
namespace {

Summary simulate(const std::string& scenario, const std::vector<std::string>& overrides,
                 const RunOptions& options = {}) {
  auto loaded = load_scenario(scenario, overrides);
  EXPECT_TRUE(loaded.is_ok()) << loaded.status().message();
  auto setup = prepare_simulation(*loaded);
  EXPECT_TRUE(setup.is_ok()) << setup.status().message();
  auto summary = run_simulation(*setup, options);
  EXPECT_TRUE(summary.is_ok()) << summary.status().message();
  return *summary;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Simulation, LittlesLawHoldsOnALongSteadyRun) {
  const double rate = 4.0;
  const Summary s =
      simulate("default", {"workload.synthetic.num_requests=40000", "workload.synthetic.rate=4",
                           "workload.synthetic.arrival=poisson"});
  ASSERT_EQ(s.requests_completed, 40000u);
  EXPECT_LT(s.kv_usage_peak, 1.0);  // steady, below saturation
  const double predicted = rate * s.e2e_s.mean;
  EXPECT_NEAR(s.concurrency_mean, predicted, 0.02 * predicted)
      << "mean concurrency " << s.concurrency_mean << " vs rate x latency " << predicted;
}

TEST(Simulation, SameSeedGivesByteIdenticalFiles) {
  const auto root = std::filesystem::path(::testing::TempDir()) / "determinism";
  std::filesystem::remove_all(root);
  const std::vector<std::string> overrides = {"workload.synthetic.num_requests=600",
                                              "workload.synthetic.rate=20",
                                              "cache.num_blocks_override=3000"};
  for (const char* run : {"a", "b"}) {
    RunOptions options;
    options.out_dir = (root / run).string();
    options.chrome_trace = (root / run / "trace.json").string();
    simulate("default", overrides, options);
  }
  RunOptions other;
  other.out_dir = (root / "c").string();
  auto with_seed = overrides;
  with_seed.push_back("seed=43");
  simulate("default", with_seed, other);
  for (const char* file : {"summary.json", "requests.csv", "timeseries.csv", "trace.json"}) {
    const std::string a = read_file(root / "a" / file);
    EXPECT_GT(a.size(), 100u) << file;
    EXPECT_EQ(a, read_file(root / "b" / file)) << file;
  }
  EXPECT_NE(read_file(root / "a" / "requests.csv"), read_file(root / "c" / "requests.csv"));
  const auto trace = nlohmann::json::parse(read_file(root / "a" / "trace.json"));
  EXPECT_GT(trace["traceEvents"].size(), 1200u);
  const auto summary = nlohmann::json::parse(read_file(root / "a" / "summary.json"));
  EXPECT_EQ(summary["requests_completed"], 600);
  EXPECT_FALSE(summary.contains("wall_s"));
}

TEST(Simulation, MooncakeHitRateEqualsAnIndependentScanOfHashIds) {
  KVSIM_REQUIRE_DATA("traces/conversation_trace.jsonl");
  const double expected =
      testing::scan_hit_rate(::kvsim::testing::data_dir() / "traces" / "conversation_trace.jsonl");
  EXPECT_GT(expected, 0.3);
  // A pool far larger than the trace (no eviction), whole prompts admitted in arrival order.
  auto scenario =
      load_scenario("mooncake-conversation",
                    {"cache.block_size=512", "cache.num_blocks_override=400000",
                     "scheduler.chunked_prefill=false", "scheduler.max_num_batched_tokens=131072"});
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  auto setup = prepare_simulation(*scenario);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  auto summary = run_simulation(*setup, {});
  ASSERT_TRUE(summary.is_ok()) << summary.status().message();
  EXPECT_EQ(summary->requests_completed, 12031u);
  EXPECT_EQ(summary->preemptions, 0u);
  EXPECT_LT(summary->kv_usage_peak, 1.0);
  EXPECT_DOUBLE_EQ(summary->prefix_cache_hit_rate, expected);
}

TEST(Simulation, BlockCountIsTheCapacityPlannersIncludingNzPadding) {
  for (const auto& [scenario, overrides] :
       std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"default", {}},
           {"default", {"cache.dtype=int8", "cache.quant_group=64", "num_devices=2"}},
           {"ascend-310p-nz", {"cache.block_size=40"}},  // rows padded to 48 in NZ
           {"ascend-310p-nz", {"cache.dtype=int8", "cache.mem_fraction=0.8"}}}) {
    auto loaded = load_scenario(scenario, overrides);
    ASSERT_TRUE(loaded.is_ok()) << loaded.status().message();
    auto setup = prepare_simulation(*loaded);
    ASSERT_TRUE(setup.is_ok()) << setup.status().message();
    CapacityQuery query;
    query.kv.dtype = loaded->cache.dtype;
    query.kv.quant_group = loaded->cache.quant_group;
    query.block_size = loaded->cache.block_size;
    query.tp = loaded->num_devices;
    EngineQuery engine = loaded->engine;
    if (loaded->cache.mem_fraction > 0) engine.memory_utilization = loaded->cache.mem_fraction;
    engine.max_num_seqs = loaded->scheduler.max_num_seqs;
    engine.max_num_batched_tokens = loaded->scheduler.max_num_batched_tokens;
    engine.chunked_prefill = loaded->scheduler.chunked_prefill;
    const auto model = load_model(loaded->model.text());
    const auto device = load_device(loaded->device.text());
    const auto plan = plan_capacity(*model, &*device, query, engine);
    ASSERT_TRUE(plan.is_ok()) << plan.status().message();
    const CapacityResult* capacity = &plan->capacity;
    EXPECT_EQ(setup->engine.cache.num_blocks, *capacity->num_blocks) << scenario;
    EXPECT_EQ(setup->engine.cache.bytes_per_block, capacity->kv_bytes_per_block);
    if (device->kv_layout == KvLayout::kNz && query.block_size == 40) {
      EXPECT_GT(capacity->kv_bytes_per_block, capacity->kv_bytes_per_block_nd);
    }
  }
}

}  // namespace
}  // namespace kvsim::sim
