// make_cost_model: the cost model a scenario's cost_model section asks for, for one engine of
// the model on a device and TP group — the measured calibration table when it names one
// (simulator/cost/calibration_table.h), else the roofline (simulator/cost/roofline_cost_model.h).
// A cluster calls it once per replica (each its own device and TP group).
#pragma once

#include <cstdint>
#include <memory>

#include "core/capacity.h"
#include "core/device_spec.h"
#include "core/dtype.h"
#include "core/model_spec.h"
#include "core/status.h"
#include "simulator/cost/roofline_cost_model.h"
#include "simulator/engine/cost_model.h"

namespace kvsim::sim {

StatusOr<std::unique_ptr<CostModel>> make_cost_model(const CostModelConfig& config,
                                                     const ModelSpec& model,
                                                     const DeviceSpec& device,
                                                     const CapacityResult& capacity,
                                                     DType weight_dtype, uint32_t num_devices);

}  // namespace kvsim::sim
