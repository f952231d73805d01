// The SLO capacity search on the real simulator, on a scenario whose answer follows by hand
// from its cost model: a calibration table makes every iteration take exactly 100 ms, one
// request per batch (max_num_seqs 1) with one output token, constant arrivals. Up to 10
// requests/s nothing queues and TTFT is 0.1 s; beyond, request n waits n x (0.1 - 1/rate), so
// TTFT p99 <= 0.15 s holds only up to 10 requests/s (plus 0.13% over 400 requests).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "simulator/io/atomic_file.h"
#include "simulator/sweep/sweep_simulation.h"
#include "tests/simulator/sweep/sweep_test_util.h"

namespace kvsim::sim::testing {
namespace {

namespace fs = std::filesystem;

const char* kScenario = R"(name: queue
model: llama3-8b
device: a100-80g
cache: {block_size: 16, prefix_caching: false}
scheduler: {max_num_seqs: 1, max_num_batched_tokens: 8192}
workload:
  synthetic:
    num_requests: 400
    arrival: constant
    rate: 5
    prompt_tokens: 100
    output_tokens: 1
cost_model: {calibration: calibration.csv}
)";

TEST(SloSimulationTest, MaxRateIsTheInverseOfTheServiceTime) {
  const fs::path dir = fresh_dir("slo_sim");
  ASSERT_TRUE(
      write_file_atomic(dir / "calibration.csv", "new_tokens,context_tokens,time_ms\n100,0,100\n")
          .is_ok());
  ASSERT_TRUE(write_file_atomic(dir / "queue.yaml", kScenario).is_ok());
  ASSERT_TRUE(write_file_atomic(dir / "sweep.yaml",
                                "base: queue.yaml\nslo: {ttft_p99_s: 0.15, precision: 1.005}\n")
                  .is_ok());
  auto spec = load_sweep((dir / "sweep.yaml").string());
  ASSERT_TRUE(spec.is_ok()) << spec.status().message();
  auto points = expand_sweep(*spec);
  ASSERT_TRUE(points.is_ok()) << points.status().message();
  auto runner = make_simulation_point_runner(*spec);
  ASSERT_TRUE(runner.is_ok()) << runner.status().message();
  fs::create_directories(dir / "point");
  const PointOutcome outcome = (*runner)(points->front(), dir / "point");
  ASSERT_TRUE(outcome.status.is_ok()) << outcome.status.message();
  const double max_rate = outcome.metrics.at("slo.max_rate_per_s");
  EXPECT_EQ(outcome.metrics.at("slo.found"), 1);
  EXPECT_NEAR(max_rate, 10.0, 10.0 * 0.01);
  EXPECT_LE(outcome.metrics.at("ttft_s.p99"), 0.15);  // the metrics at the answer meet the SLO
  EXPECT_TRUE(fs::exists(dir / "point" / "summary.json"));
  // One request at a time: no preemption, no drop; TTFT is what binds.
  EXPECT_EQ(outcome.binding.rfind("ttft_s.p99 = ", 0), 0u) << outcome.binding;
  EXPECT_THAT(outcome.binding, ::testing::EndsWith(" > 0.15"));

  // 10% more load misses the SLO.
  ConfigNode faster = points->front().config;
  ASSERT_TRUE(
      faster.set_path("workload.synthetic.rate", ConfigNode::scalar(std::to_string(max_rate * 1.1)))
          .is_ok());
  SweepPoint probe = points->front();
  probe.config = faster;
  SweepSpec plain = *spec;
  plain.slo = ConfigNode();
  auto plain_runner = make_simulation_point_runner(plain);
  ASSERT_TRUE(plain_runner.is_ok());
  fs::create_directories(dir / "probe");
  const PointOutcome more = (*plain_runner)(probe, dir / "probe");
  ASSERT_TRUE(more.status.is_ok()) << more.status.message();
  EXPECT_GT(more.metrics.at("ttft_s.p99"), 0.15);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kvsim::sim::testing
