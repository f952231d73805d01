// make_cost_model: the cost model a scenario's cost_model section asks for, for one engine of
// the model on a device and TP group (simulator/cost/cost_model_config.h lists the kinds).
// A cluster calls it once per replica (each its own device and TP group).
#pragma once

#include <cstdint>
#include <memory>

#include "core/base/status.h"
#include "core/engine/capacity.h"
#include "core/engine/parallel_layout.h"
#include "core/model/device_spec.h"
#include "core/model/dtype.h"
#include "core/model/model_spec.h"
#include "simulator/cost/cost_model_config.h"
#include "simulator/cost/execution_profile.h"
#include "simulator/cost/operator_fits.h"
#include "simulator/engine/cost_model.h"

namespace kvsim::sim {

// `profile`: how the engine runs its kernels (execution_profile.h); the default, no engine,
// is the cost model's own rule (cost_model.cuda_graphs' decode graphs, NCCL all-reduces).
// `layout`: the parallel layout one rank of which the model times (its tp is num_devices;
// valid: validate_parallel_layout); dp, ep > 1 need kind operators, else an error naming
// cost_model.kind.
StatusOr<std::unique_ptr<CostModel>> make_cost_model(
    const CostModelConfig& config, const ModelSpec& model, const DeviceSpec& device,
    const CapacityResult& capacity, DType weight_dtype, uint32_t num_devices,
    const ExecutionProfile& profile = {}, const ParallelLayout& layout = {});

// The operator model's fit for a configuration: `fit` by name or the device's, then the
// calibration file's parameters (its base fit when `fit` is empty), then `parameters`.
StatusOr<OperatorFit> resolve_operator_fit(const CostModelConfig& config, const DeviceSpec& device);

}  // namespace kvsim::sim
