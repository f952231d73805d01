// A whole scenario through the façade, for tests: load (with --set style overrides), prepare,
// run; each step's failure is a test failure naming its Status.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "simulator/simulation.h"

namespace kvsim::sim::testing {

inline Summary run_scenario(const std::string& name_or_path,
                            const std::vector<std::string>& overrides,
                            const RunOptions& options = {}) {
  auto scenario = load_scenario(name_or_path, overrides);
  EXPECT_TRUE(scenario.is_ok()) << scenario.status().message();
  if (!scenario.is_ok()) return {};
  auto setup = prepare_simulation(*scenario);
  EXPECT_TRUE(setup.is_ok()) << setup.status().message();
  if (!setup.is_ok()) return {};
  auto summary = run_simulation(*setup, options);
  EXPECT_TRUE(summary.is_ok()) << summary.status().message();
  return summary.is_ok() ? *summary : Summary{};
}

}  // namespace kvsim::sim::testing
