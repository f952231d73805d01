#include "core/capacity_plan.h"

namespace kvsim {

StatusOr<CapacityPlan> plan_capacity(const ModelSpec& model, const DeviceSpec* device,
                                     const CapacityQuery& query, const EngineQuery& engine) {
  CapacityPlan plan;
  plan.query = query;
  const bool ask_engine = device != nullptr && !query.kv_budget_bytes && model.num_params > 0;
  if (ask_engine) {
    KVSIM_RETURN_IF_ERROR(validate_model(model));
    KVSIM_ASSIGN_OR_RETURN(EngineBudget budget,
                           compute_engine_budget(model, *device, query, engine));
    if (plan.query.block_size == 0) plan.query.block_size = budget.block_size;
    plan.query.kv_budget_bytes = budget.kv_budget_bytes;
    plan.engine = std::move(budget);
  }
  KVSIM_ASSIGN_OR_RETURN(plan.capacity, compute_capacity(model, device, plan.query));
  if (plan.engine && plan.capacity.num_blocks) {
    plan.reported =
        engine_kv_report(*plan.engine, *plan.capacity.num_blocks, plan.capacity.block_size);
  }
  return plan;
}

}  // namespace kvsim
