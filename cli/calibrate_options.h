// The flags every mode of `kvsim calibrate` take (cli/calibrate_command.cc declares them once:
// CLI11 refuses a name twice). Each mode reads the ones it needs; an empty value means that
// mode's default, as the comments say.
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/model_options.h"

namespace kvsim::cli {

struct CalibrateSharedOptions {
  ModelOptions model;          // --model (measurements: also --layers --kv-heads --head-dim)
  std::string device;          // --device: preset or YAML file
  std::optional<uint32_t> tp;  // --tp; empty: 1 (measurements), the log's (--from-log)
  std::string weight_dtype;    // --weight-dtype; empty: fp16 (measurements), the log's
  std::string kv_dtype;        // --kv-dtype / --dtype; empty: fp16, the log's model dtype
  std::string output;          // -o: calibration YAML (measurements, --fit-on), deployment file
  std::string parameters;      // --parameters: comma-separated names to fit; "" = the mode's
  bool json = false;           // --json: --from-log and --from-bench print JSON
};

// The names of a comma-separated list (--parameters, --fit-on), empty ones skipped.
inline std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    if (!name.empty()) out.push_back(name);
  }
  return out;
}

}  // namespace kvsim::cli
