// `kvsim calibrate MEASUREMENTS.csv`: the operator cost model's parameters fitted to measured
// iteration or request times (simulator/cost/calibrate.h), the residual per row printed, and a
// YAML that `cost_model.calibration:` accepts written.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "cli/model_options.h"

namespace kvsim::cli {

struct CalibrateMeasurementsOptions {
  std::string measurements;  // the CSV (positional)
  ModelOptions model;
  std::string device;
  uint32_t tp = 1;
  std::string weight_dtype = "fp16";
  std::string kv_dtype = "fp16";
  std::string fit;  // starting fit; "" = the device's
  std::string cuda_graphs = "decode";
  std::string parameters;  // comma-separated names; "" = the defaults
  std::string output;      // -o: the YAML
};

// Adds the mode's options (all but the positional CSV) to `command`.
void add_calibrate_measurements_options(CLI::App* command, CalibrateMeasurementsOptions* options);
int run_calibrate_measurements(const CalibrateMeasurementsOptions& options);

}  // namespace kvsim::cli
