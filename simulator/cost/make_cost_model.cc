#include "simulator/cost/make_cost_model.h"

#include "core/base/check.h"
#include "simulator/cost/calibration_file.h"
#include "simulator/cost/calibration_table.h"
#include "simulator/cost/operator_cost_model.h"
#include "simulator/cost/profile_cost_model.h"
#include "simulator/cost/roofline_cost_model.h"

namespace kvsim::sim {

StatusOr<OperatorFit> resolve_operator_fit(const CostModelConfig& config,
                                           const DeviceSpec& device) {
  std::optional<CalibrationFile> calibration;
  if (!config.calibration.empty()) {
    KVSIM_ASSIGN_OR_RETURN(calibration, read_calibration_file(config.calibration));
  }
  OperatorFit fit = operator_fit_for_device(device);
  const std::string& base =
      !config.fit.empty() ? config.fit : (calibration ? calibration->base : std::string());
  if (!base.empty() && base != fit.name) {
    KVSIM_ASSIGN_OR_RETURN(fit, find_operator_fit(base));
  }
  if (calibration) {
    KVSIM_RETURN_IF_ERROR(apply_fit_overrides(calibration->parameters, &fit));
    fit.name += "+" + config.calibration;
  }
  KVSIM_RETURN_IF_ERROR(apply_fit_overrides(config.parameters, &fit));
  return fit;
}

StatusOr<std::unique_ptr<CostModel>> make_cost_model(
    const CostModelConfig& config, const ModelSpec& model, const DeviceSpec& device,
    const CapacityResult& capacity, DType weight_dtype, uint32_t num_devices,
    const ExecutionProfile& profile, const ParallelLayout& layout) {
  ParallelLayout rank = layout;
  rank.tp = num_devices;
  KVSIM_CHECK(num_devices % rank.dp == 0 && num_devices % rank.ep == 0,
              "the layout's dp and ep divide its TP group (validate_parallel_layout)");
  if ((rank.dp > 1 || rank.ep > 1) && config.kind != CostModelKind::kOperators) {
    return Status::invalid_argument("cost_model.kind (--kind) " +
                                    std::string(cost_model_kind_name(config.kind)) +
                                    " times one TP group; a layout with dp or ep > 1 (" +
                                    describe_parallel_layout(rank) + ") needs kind operators");
  }
  switch (config.kind) {
    case CostModelKind::kTable: {
      if (config.calibration.empty()) {
        return Status::invalid_argument("cost_model: kind table needs 'calibration' (a CSV)");
      }
      KVSIM_ASSIGN_OR_RETURN(auto table, CalibratedCostModel::load(config.calibration));
      return std::unique_ptr<CostModel>(std::move(table));
    }
    case CostModelKind::kRoofline: {
      const RooflineInputs inputs =
          roofline_inputs(model, device, capacity, weight_dtype, num_devices);
      return std::unique_ptr<CostModel>(new RooflineCostModel(inputs, config));
    }
    case CostModelKind::kProfile: {
      KVSIM_ASSIGN_OR_RETURN(auto profiled,
                             ProfileCostModel::load(config, model, device, num_devices));
      return std::unique_ptr<CostModel>(std::move(profiled));
    }
    case CostModelKind::kOperators:
      break;
  }
  KVSIM_ASSIGN_OR_RETURN(OperatorFit fit, resolve_operator_fit(config, device));
  OperatorInputs inputs = operator_inputs(model, device, capacity, weight_dtype, rank);
  inputs.expert_imbalance = config.expert_imbalance;
  return std::unique_ptr<CostModel>(new OperatorCostModel(
      std::move(inputs), std::move(fit), with_cuda_graphs(profile, config.cuda_graphs)));
}

}  // namespace kvsim::sim
