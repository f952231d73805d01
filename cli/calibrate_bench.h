// `kvsim calibrate --from-bench FILE...`: serving benchmarks' own results (vllm bench serve
// --save-result --save-detailed, SGLang's bench_serving --output-details JSONL: a run a line;
// simulator/workload/bench_result.h) replayed through a scenario
// (simulator/sweep/bench_fit.h): the requests each client sent (their lengths, its send times
// or its rate and concurrency limit) on the scenario's model, device and engine.
//   compare (no --fit-on)   every latency figure measured beside kvsim's (TTFT, TPOT, E2E:
//                           mean, p50, p90, p99; output tokens/s) with kvsim's error, per file
//   --fit-on RUNS           the terms of --parameters (default frontend_s and the GEMMs'
//                           efficiencies) fitted on those runs; every run's error before and
//                           after, the held-out runs' median; -o writes the calibration YAML
//                           (cost_model.calibration reads it, its frontend_s included)
// The third mode of `kvsim calibrate` (cli/calibrate_command.cc).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/calibrate_options.h"

namespace kvsim::cli {

struct CalibrateBenchOptions {
  std::vector<std::string> bench_paths;  // --from-bench, one run each
  std::string scenario = "default";      // --scenario: preset or YAML file
  std::vector<std::string> overrides;    // --set KEY=VALUE, applied last
  uint64_t seed = 0;                     // --seed: the arrival gaps when none were recorded
  std::string fit_on;                    // --fit-on: all, or 1-based positions / names
};

void add_calibrate_bench_options(CLI::App* command, CalibrateBenchOptions* options);
// Exit code: 0, or 2 naming the file or the field.
int run_calibrate_from_bench(const CalibrateSharedOptions& shared,
                             const CalibrateBenchOptions& options);

}  // namespace kvsim::cli
