// Shared fixtures for the sweep tests: sweeps built from YAML text and a fake point runner
// whose metrics are a pure function of the point's configuration.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/config/yaml_io.h"
#include "simulator/io/atomic_file.h"
#include "simulator/sweep/sweep_runner.h"
#include "simulator/sweep/sweep_spec.h"

namespace kvsim::sim::testing {

inline StatusOr<ConfigNode> no_presets(SweepKind, const std::string& name) {
  return Status::not_found("no presets in this test: " + name);
}

inline SweepSpec sweep_from_text(const std::string& yaml) {
  auto node = parse_yaml(yaml, "sweep.yaml");
  EXPECT_TRUE(node.is_ok()) << node.status().message();
  auto spec = sweep_from_config(*node, "sweep.yaml", no_presets);
  EXPECT_TRUE(spec.is_ok()) << spec.status().message();
  return spec.is_ok() ? *spec : SweepSpec{};
}

inline std::vector<SweepPoint> expand(const SweepSpec& spec) {
  auto points = expand_sweep(spec);
  EXPECT_TRUE(points.is_ok()) << points.status().message();
  return points.is_ok() ? *points : std::vector<SweepPoint>{};
}

// metric "x2" = 2 * a, "sum" = a + b; fails when a == fail_a.
inline PointRunner fake_runner(int fail_a = -1) {
  return [=](const SweepPoint& point, const std::filesystem::path& dir) {
    const double a = std::stod(point.config.find_path("a")->text());
    const double b = std::stod(point.config.find_path("b")->text());
    PointOutcome outcome;
    if (static_cast<int>(a) == fail_a) {
      outcome.status = Status::invalid_argument("a = " + std::to_string(fail_a) + " is impossible");
      return outcome;
    }
    (void)write_file_atomic(dir / "extra.txt", "written by the runner\n");
    outcome.metrics = {{"x2", 2 * a}, {"sum", a + b}};
    return outcome;
  };
}

inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("kvsim_sweep_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

inline std::string summary_of(const std::filesystem::path& dir) {
  auto text = read_file(dir / "summary.csv");
  EXPECT_TRUE(text.is_ok()) << text.status().message();
  return text.is_ok() ? *text : "";
}

}  // namespace kvsim::sim::testing
