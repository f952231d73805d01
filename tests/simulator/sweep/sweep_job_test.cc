// load_sweep_request and run_loaded_sweep: the one assembly of a sweep run that `kvsim sweep`
// and kvsim.sweep() share.
#include "simulator/sweep/sweep_job.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/simulator/sweep/sweep_test_util.h"

namespace kvsim::sim::testing {
namespace {

TEST(SweepJobTest, LoadsYamlTextAndRunsItsPointsWithOneWorkerPerCoreByDefault) {
  auto sweep = load_sweep_request(
      {"<text>",
       "kind: simulate\nbase: default\nset: {workload.synthetic.num_requests: 20}\n"
       "grid: {cache.block_size: [16, 32]}\n"});
  ASSERT_TRUE(sweep.is_ok()) << sweep.status().message();
  ASSERT_EQ(sweep->points.size(), 2u);
  const std::filesystem::path dir = fresh_dir("sweep_job");
  SweepRunOptions options;
  options.out_dir = dir;  // jobs 0: one per core
  auto result = run_loaded_sweep(*sweep, options);
  ASSERT_TRUE(result.is_ok()) << result.status().message();
  EXPECT_EQ(result->ran, 2u);
  EXPECT_EQ(result->failed, 0u);
  EXPECT_TRUE(std::filesystem::exists(dir / "summary.csv"));
  std::filesystem::remove_all(dir);
}

TEST(SweepJobTest, NamesWhatIsMissing) {
  auto none = load_sweep_request({"", ""});
  ASSERT_FALSE(none.is_ok());
  EXPECT_EQ(none.status().message(), "give a sweep file or name");
  auto unknown = load_sweep_request({"no-such-sweep", ""});
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_THAT(unknown.status().message(), ::testing::HasSubstr("valid: devices-vs-dtype"));
}

}  // namespace
}  // namespace kvsim::sim::testing
