// The flags both modes of `kvsim calibrate` take (cli/calibrate_command.cc declares them once:
// CLI11 refuses a name twice). Each mode reads the ones it needs; an empty value means that
// mode's default, as the comments say.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cli/model_options.h"

namespace kvsim::cli {

struct CalibrateSharedOptions {
  ModelOptions model;          // --model (measurements: also --layers --kv-heads --head-dim)
  std::string device;          // --device: preset or YAML file
  std::optional<uint32_t> tp;  // --tp; empty: 1 (measurements), the log's (--from-log)
  std::string weight_dtype;    // --weight-dtype; empty: fp16 (measurements), the log's
  std::string kv_dtype;        // --kv-dtype / --dtype; empty: fp16, the log's model dtype
  std::string output;          // -o: calibration YAML (measurements), deployment file (log)
  bool json = false;           // --json: --from-log and --from-bench print JSON
};

}  // namespace kvsim::cli
