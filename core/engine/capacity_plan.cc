#include "core/engine/capacity_plan.h"

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
    // A hybrid model's window groups hold the window plus one chunk: the engine's chunk.
    if (budget.max_num_batched_tokens > 0) {
      plan.query.max_num_batched_tokens = budget.max_num_batched_tokens;
    }
    // Without a sequence length the question is about the longest request the engine takes.
    if (plan.query.seq_len == 0) plan.query.seq_len = budget.max_model_len;
    plan.engine = std::move(budget);
  } else if (plan.query.seq_len == 0) {
    plan.query.seq_len = engine.max_model_len;  // 0 (the model's max positions) unless given
  }
  KVSIM_ASSIGN_OR_RETURN(plan.capacity, compute_capacity(model, device, plan.query));
  // engine_kv_report counts one block table per request; a hybrid pool's log lines follow
  // core/model/kv_groups.h instead, and capacity.max_tokens already prints them.
  if (plan.engine && plan.capacity.num_blocks && !plan.capacity.hybrid) {
    plan.reported =
        engine_kv_report(*plan.engine, *plan.capacity.num_blocks, plan.capacity.block_size);
  }
  return plan;
}

}  // namespace kvsim
