// RunOptions::stop: a run whose stop flag is set returns a cancelled Status within one
// progress period instead of running to the end (the GUI's Cancel); an unset flag changes
// nothing.
#include <gtest/gtest.h>

#include <atomic>

#include "simulator/simulation.h"

namespace kvsim::sim {
namespace {

SimulationSetup default_setup(const std::vector<std::string>& overrides) {
  auto scenario = load_scenario("default", overrides);
  EXPECT_TRUE(scenario.is_ok()) << scenario.status().message();
  auto setup = prepare_simulation(*scenario);
  EXPECT_TRUE(setup.is_ok()) << setup.status().message();
  return *setup;
}

TEST(SimulationStop, FlagSetAtTheFirstProgressReportCancelsTheRun) {
  const SimulationSetup setup = default_setup({"workload.synthetic.num_requests=3000"});
  std::atomic<bool> stop{false};
  uint64_t last_completed = 0;
  int reports = 0;
  RunOptions options;
  options.stop = &stop;
  options.progress = [&](const Progress& p) {
    ++reports;
    last_completed = p.completed;
    stop = true;
  };
  auto summary = run_simulation(setup, options);
  ASSERT_FALSE(summary.is_ok());
  EXPECT_EQ(summary.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(reports, 1);  // stopped at the first check after the flag was set
  EXPECT_LT(last_completed, 3000u);
}

TEST(SimulationStop, UnsetFlagRunsToTheEnd) {
  const SimulationSetup setup = default_setup({"workload.synthetic.num_requests=300"});
  std::atomic<bool> stop{false};
  RunOptions options;
  options.stop = &stop;
  auto summary = run_simulation(setup, options);
  ASSERT_TRUE(summary.is_ok()) << summary.status().message();
  EXPECT_EQ(summary->requests_completed + summary->requests_dropped, 300u);
}

}  // namespace
}  // namespace kvsim::sim
