// The calibration file of the operator cost model: the parameters `kvsim calibrate` fitted, as
// a YAML that `cost_model.calibration:` accepts.
//
//   kvsim_calibration: 1
//   base: a100                 # the built-in fit the parameters replace values of
//   model: llama2-70b          # what the measurements were (informative)
//   device: a100-80g
//   tp: 2
//   rows: 24
//   frontend_s: 0.0123        # optional: a client's time beyond the engine per request, which
//                             # a scenario takes unless its cost_model gives frontend_s
//   parameters:                # any of fit_parameters(), flat dotted names or nested maps
//     gemm.compute_efficiency_max: 0.71
//     iteration_overhead_s: 0.00042
// Unknown keys and parameters are errors naming file:line:column and the valid names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/config/config_node.h"
#include "simulator/cost/cost_model_config.h"
#include "simulator/cost/operator_fits.h"

namespace kvsim::sim {

struct CalibrationFile {
  std::string base;  // fit name; "" = the device's
  std::string model, device;
  uint32_t tp = 1;
  uint64_t rows = 0;
  std::optional<double> frontend_s;  // cost_model.frontend_s, when it was fitted
  std::vector<FitOverride> parameters;
};

StatusOr<CalibrationFile> read_calibration_file(const std::string& path);

// The parameters of a map (nested maps joined with '.'), each a number; `what` names the
// section in messages.
Status read_fit_overrides(const ConfigNode& node, const std::string& what,
                          std::vector<FitOverride>* out);

// Applies the overrides in order; a bad name or value is an error at its mark.
Status apply_fit_overrides(const std::vector<FitOverride>& overrides, OperatorFit* fit);

// The YAML of a calibration: the header's fields (frontend_s when set), `fitted` names the
// parameters to write (with fit's values);
// `comment` lines go at the top as # comments.
std::string calibration_yaml(const CalibrationFile& header, const OperatorFit& fit,
                             const std::vector<std::string>& fitted,
                             const std::vector<std::string>& comment);

}  // namespace kvsim::sim
