// CapacityPlan: a capacity question answered the way an engine would answer it — the engine's
// KV budget (core/engine/engine_memory.h), then the blocks of that budget (core/engine/capacity.h).
// The CLI, the GUI and the simulator all go through plan_capacity(), so they print the same blocks.
//
//   no device, no --kv-budget-bytes   per-token and per-block answers only
//   --kv-budget-bytes B               blocks of B; no engine
//   a device (and the model's params) the engine's budget; block_size 0 takes the engine's
//                                     default block size (vLLM 16, vllm-ascend/MindIE 128,
//                                     SGLang 1), unless the device says otherwise for vLLM
#pragma once

#include <optional>

#include "core/engine/capacity.h"
#include "core/engine/engine_memory.h"

namespace kvsim {

struct CapacityPlan {
  CapacityQuery query;                 // as asked, with block size and budget resolved
  std::optional<EngineBudget> engine;  // the engine's budget, when it was asked
  CapacityResult capacity;
  std::optional<EngineKvReport> reported;  // what the engine's log would print for the pool
};

StatusOr<CapacityPlan> plan_capacity(const ModelSpec& model, const DeviceSpec* device,
                                     const CapacityQuery& query, const EngineQuery& engine);

}  // namespace kvsim
