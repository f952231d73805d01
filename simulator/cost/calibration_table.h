// CalibratedCostModel: iteration times measured on the real deployment, looked up by batch
// shape; when a scenario names a calibration file it replaces the roofline entirely.
//
// File: CSV with the header `new_tokens,context_tokens,time_ms` (any column order, extra
// columns ignored), one row per measured batch shape: tokens computed in the iteration, cached
// tokens attended (BatchShape::context_tokens) and the measured time in milliseconds. The rows
// must cover a full grid: every new_tokens value measured with every context_tokens value,
// each once (a single value on an axis is allowed: the time then does not depend on it).
// Lookup: bilinear interpolation in the grid cell holding (new_tokens, context_tokens),
// extended linearly beyond the outermost rows (from the last two values of an axis), and never
// below the smallest measured time. Measure on the same TP group, dtype and engine settings as
// the scenario: the table already holds overhead and communication.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "simulator/engine/cost_model.h"

namespace kvsim::sim {

class CalibratedCostModel final : public CostModel {
 public:
  // Reads and checks the file; errors name file:line.
  static StatusOr<std::unique_ptr<CalibratedCostModel>> load(const std::string& path);
  // From values in memory: times_s[i * context_axis.size() + j] for (new_axis[i],
  // context_axis[j]); both axes strictly increasing and non-empty.
  CalibratedCostModel(std::string name, std::vector<double> new_axis,
                      std::vector<double> context_axis, std::vector<double> times_s);

  std::string name() const override { return name_; }
  int64_t iteration_ns(const BatchShape& batch) const override;
  // The interpolated time in seconds.
  double time_s(double new_tokens, double context_tokens) const;

 private:
  std::string name_;
  std::vector<double> new_axis_;
  std::vector<double> context_axis_;
  std::vector<double> times_s_;
  double min_time_s_ = 0;
};

}  // namespace kvsim::sim
