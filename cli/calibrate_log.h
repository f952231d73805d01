// `kvsim calibrate --from-log FILE`: kvsim's KV budget beside each figure of a vLLM (0.4 - V1),
// vllm-ascend or SGLang start-up log, and a deployment file (-o) that reproduces the log's KV
// cache exactly (core/engine/log_calibration.h). The --from-log mode of `kvsim calibrate`; the
// measurements mode (cli/calibrate_measurements.h) is the other. cli/calibrate_command.cc
// declares the shared flags (cli/calibrate_options.h), adds these, and runs this mode when
// --from-log is given.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "cli/calibrate_options.h"
#include "cli/engine_options.h"

namespace kvsim::cli {

// The mode's own options; model, device, TP, dtypes and -o (the deployment file; empty: none)
// are the shared ones.
struct CalibrateLogOptions {
  std::string log_path;  // --from-log
  std::optional<uint32_t> block_size;
  EngineOptions engine;
};

// Adds --from-log and the mode's own options to `command`.
void add_calibrate_log_options(CLI::App* command, CalibrateLogOptions* options);
// Exit code: 0, or 2 with the log file named in the message.
int run_calibrate_from_log(const CalibrateSharedOptions& shared,
                           const CalibrateLogOptions& options);

}  // namespace kvsim::cli
