#include "simulator/cost/make_cost_model.h"

#include "simulator/cost/calibration_table.h"

namespace kvsim::sim {

StatusOr<std::unique_ptr<CostModel>> make_cost_model(const CostModelConfig& config,
                                                     const ModelSpec& model,
                                                     const DeviceSpec& device,
                                                     const CapacityResult& capacity,
                                                     DType weight_dtype, uint32_t num_devices) {
  if (!config.calibration.empty()) {
    KVSIM_ASSIGN_OR_RETURN(auto table, CalibratedCostModel::load(config.calibration));
    return std::unique_ptr<CostModel>(std::move(table));
  }
  const RooflineInputs inputs = roofline_inputs(model, device, capacity, weight_dtype, num_devices);
  return std::unique_ptr<CostModel>(new RooflineCostModel(inputs, config));
}

}  // namespace kvsim::sim
