// `kvsim calibrate --from-bench FILE`: a serving benchmark's own result (vllm bench serve
// --save-result --save-detailed, simulator/workload/bench_result.h) replayed through a scenario:
// the requests the client sent (their lengths, its send times or its rate and concurrency
// limit) on the scenario's model, device and engine, and every latency figure measured beside
// kvsim's (TTFT, TPOT, E2E: mean, p50, p90, p99; output tokens/s), with kvsim's error. The third
// mode of `kvsim calibrate` (cli/calibrate_command.cc). Fitting terms to the file is still to
// come (issue 38, item 5); this mode compares.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/calibrate_options.h"

namespace kvsim::cli {

struct CalibrateBenchOptions {
  std::string bench_path;              // --from-bench
  std::string scenario = "default";    // --scenario: preset or YAML file
  std::vector<std::string> overrides;  // --set KEY=VALUE, applied last
  uint64_t seed = 0;                   // --seed: the arrival gaps when none were recorded
};

void add_calibrate_bench_options(CLI::App* command, CalibrateBenchOptions* options);
// Exit code: 0, or 2 naming the file or the field.
int run_calibrate_from_bench(const CalibrateSharedOptions& shared,
                             const CalibrateBenchOptions& options);

}  // namespace kvsim::cli
