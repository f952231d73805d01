#include "cli/calibrate_measurements.h"

#include <cmath>
#include <cstdio>

#include "cli/command.h"
#include "core/engine/capacity.h"
#include "core/model/load_spec.h"
#include "simulator/cost/calibrate.h"
#include "simulator/cost/calibration_file.h"
#include "simulator/cost/layer_kind_costs.h"
#include "simulator/cost/make_cost_model.h"
#include "simulator/io/atomic_file.h"

namespace kvsim::cli {
namespace {

void print_rows(const std::vector<sim::Measurement>& rows, const sim::CalibrationResult& r) {
  std::printf("%-28s %-34s %12s %12s %8s %12s %8s\n", "row", "batch", "measured s", "before s",
              "error", "after s", "error");
  double worst = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const double before = r.before_s[i] / rows[i].seconds - 1;
    const double after = r.after_s[i] / rows[i].seconds - 1;
    worst = std::max(worst, std::abs(after));
    std::printf("%-28s %-34s %12.6g %12.6g %+7.1f%% %12.6g %+7.1f%%\n", rows[i].where.c_str(),
                rows[i].batch.c_str(), rows[i].seconds, r.before_s[i], 100 * before, r.after_s[i],
                100 * after);
  }
  std::printf("largest |error| after the fit: %.2f%% (%d Levenberg-Marquardt steps)\n", 100 * worst,
              r.iterations);
}

}  // namespace

void add_calibrate_measurements_options(CLI::App* command, CalibrateMeasurementsOptions* o) {
  command->add_option("--fit", o->fit,
                      "starting fit (a100 h100 h200 ascend; default: the device's)");
  command->add_option("--cuda-graphs", o->cuda_graphs,
                      "none decode all (as the measured engine ran)");
}

int run_calibrate_measurements(const CalibrateSharedOptions& shared,
                               const CalibrateMeasurementsOptions& o) {
  if (shared.device.empty() || shared.output.empty()) {
    return report_error(
        Status::invalid_argument("calibrate MEASUREMENTS.csv needs --device and -o"));
  }
  const uint32_t tp = shared.tp.value_or(1);
  auto model = resolve_model(shared.model);
  if (!model.is_ok()) return report_error(model.status());
  auto device = load_device(shared.device);
  if (!device.is_ok()) return report_error(device.status());
  auto weight_dtype = parse_dtype(shared.weight_dtype.empty() ? "fp16" : shared.weight_dtype);
  if (!weight_dtype.is_ok()) return report_error(weight_dtype.status());
  auto kv_dtype = parse_dtype(shared.kv_dtype.empty() ? "fp16" : shared.kv_dtype);
  if (!kv_dtype.is_ok()) return report_error(kv_dtype.status());
  auto graphs = sim::parse_cuda_graphs(o.cuda_graphs);
  if (!graphs.is_ok()) return report_error(graphs.status());
  CapacityQuery query;
  query.kv.dtype = *kv_dtype;
  query.weight_dtype = *weight_dtype;
  query.tp = tp;
  auto capacity = compute_capacity(*model, &*device, query);
  if (!capacity.is_ok()) return report_error(capacity.status());
  auto window = sim::cost_window_tokens(*model);
  if (!window.is_ok()) return report_error(window.status());
  auto rows = sim::read_measurements(o.measurements, *window);
  if (!rows.is_ok()) return report_error(rows.status());
  sim::CostModelConfig config;
  config.fit = o.fit;
  auto start = sim::resolve_operator_fit(config, *device);
  if (!start.is_ok()) return report_error(start.status());
  const std::vector<std::string> names = shared.parameters.empty()
                                             ? sim::default_calibration_parameters(tp)
                                             : split_names(shared.parameters);
  const sim::OperatorInputs inputs =
      sim::operator_inputs(*model, *device, *capacity, *weight_dtype, tp);
  auto result = sim::calibrate(*rows, inputs, *start, *graphs, names);
  if (!result.is_ok()) return report_error(result.status());
  print_rows(*rows, *result);
  std::printf("\n%-42s %14s %14s\n", "parameter", "start", "fitted");
  for (const std::string& name : names) {
    std::printf("%-42s %14.6g %14.6g\n", name.c_str(), sim::get_fit_parameter(*start, name),
                sim::get_fit_parameter(result->fit, name));
  }
  sim::CalibrationFile header;
  header.base = start->name;
  header.model = model->name;
  header.device = device->name;
  header.tp = tp;
  header.rows = rows->size();
  const std::string yaml =
      sim::calibration_yaml(header, result->fit, names,
                            {"written by kvsim calibrate " + o.measurements,
                             "use it as cost_model: {kind: operators, calibration: <this file>}"});
  const Status written = sim::write_file_atomic(shared.output, yaml);
  if (!written.is_ok()) return report_error(written);
  std::printf("wrote %s\n", shared.output.c_str());
  return kExitOk;
}

}  // namespace kvsim::cli
