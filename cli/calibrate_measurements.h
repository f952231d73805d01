// `kvsim calibrate MEASUREMENTS.csv`: the operator cost model's parameters fitted to measured
// iteration or request times (simulator/cost/calibrate.h), the residual per row printed, and a
// YAML that `cost_model.calibration:` accepts written.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "cli/calibrate_options.h"

namespace kvsim::cli {

// The mode's own options; model, device, TP, dtypes, -o and --parameters are the shared ones.
struct CalibrateMeasurementsOptions {
  std::string measurements;  // the CSV (positional)
  std::string fit;           // starting fit; "" = the device's
  std::string cuda_graphs = "decode";
};

// Adds the mode's own options (not the positional CSV, not the shared ones) to `command`.
void add_calibrate_measurements_options(CLI::App* command, CalibrateMeasurementsOptions* options);
int run_calibrate_measurements(const CalibrateSharedOptions& shared,
                               const CalibrateMeasurementsOptions& options);

}  // namespace kvsim::cli
