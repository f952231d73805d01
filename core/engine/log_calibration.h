// LogCalibration: kvsim's prediction beside each figure an engine's start-up log states, and
// the measured set-aside with which kvsim reproduces the log's KV cache exactly.
//
//   1. predicted  = plan_capacity(model, device, the log's settings) — no figure of the log
//      beyond what it says of the device (its total, and what was in use at start)
//   2. the log's pool: "# GPU blocks" / "GPU KV cache size: N tokens" (N / block size; vLLM
//      >= 0.21 prints int(blocks / ceil(L / block) x L)) / SGLang "#tokens" / vllm-ascend
//      "Available memory: <bytes>"; failing those, "Available KV cache memory" (rounded GiB:
//      the reproduction is then only as exact as the log)
//   3. a KV budget B inside [blocks x bytes per block, (blocks + 1) x bytes per block): the
//      logged available memory when it falls inside, else the middle
//   4. set-aside = requested - ceil(B / kv_factor)   (requested from the log's total and
//      utilization where it gives them), so floor((requested - set-aside) x kv_factor) = B
//   5. calibrated = plan_capacity with that set-aside: its blocks are the log's (checked)
// A pool that does not fit the requested memory is an error; where --model is not the log's
// model (CalibrationSetup::model_mismatch) the error says that, not "check --mem-fraction".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/engine/calibration_setup.h"
#include "core/engine/capacity_plan.h"
#include "core/engine/deployment.h"
#include "core/engine/startup_log.h"

namespace kvsim {

struct FigureRow {
  std::string name;  // "weights", "GPU KV cache size", ...
  std::string unit;  // "GiB", "tokens", "blocks", "x"
  std::optional<double> logged;
  std::optional<double> predicted;
  int line = 0;  // where the log states it
};

struct LogCalibration {
  CapacityPlan predicted;   // from the model and device alone
  CapacityPlan calibrated;  // with the measured set-aside
  std::vector<FigureRow> rows;
  uint64_t target_blocks = 0;
  std::string target_source;  // which line gave the pool
  bool exact = false;         // the log gives the pool as a count (not a rounded GiB figure)
  uint64_t set_aside_bytes = 0;
  std::vector<std::string> notes;
};

StatusOr<LogCalibration> calibrate_from_log(const StartupLog& log, const CalibrationSetup& setup);

// The deployment file that reproduces the log (`source` says where it came from).
Deployment calibrated_deployment(const StartupLog& log, const CalibrationSetup& setup,
                                 const LogCalibration& calibration, const std::string& source);

}  // namespace kvsim
