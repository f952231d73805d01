// EngineSetup: one engine of a scenario resolved and sized — the model and device presets
// loaded, the KV pool sized by the capacity planner, the engine's configuration filled in.
// prepare_engine_setup() is the one place this happens for a run; a cluster sets up each of
// its replicas with it (simulator/setup/cluster_setup.h).
//
//   KV blocks     core/engine/capacity_plan.h's plan_capacity() for (model, device, cache dtype and
//                 quant group, weight dtype, block size, tp = num_devices) under the scenario's
//                 engine (core/engine/engine_memory.h: cache.mem_fraction is its memory
//                 utilization, the scheduler limits its profile batch), the NZ padding of NZ
//                 devices included, so `kvsim capacity` with the same options prints the same
//                 num_blocks; cache.num_blocks_override replaces it
//   limits        scheduler.max_num_seqs / max_num_batched_tokens, 0 = the engine's defaults
//                 for the model and device (vLLM: 2048 / 256 below 70 GiB or on an A100)
//   bytes/block   CapacityResult::kv_bytes_per_block (swap transfers, the cost model)
//   host tier     floor(host_swap_gib x 2^30 / bytes per block) blocks
//   retention     cache.retention; "full" on a sliding-window model (Mistral, Phi-3) becomes
//                 window:W-1 for its window W, as vLLM frees the blocks before
//                 num_computed_tokens - W + 1 (sliding_window_retention)
//   context       the model's max_position_embeddings
//   speculative   the drafter's weights and KV layers in the capacity plan, its passes'
//                 model (simulator/setup/speculative_setup.h), the scheduler's rules
//   hybrid models (core/model/model_spec.h is_hybrid): EngineConfig::cache_groups from the capacity
//                 plan's KV cache groups (core/cache/kv_cache_coordinator.h); swap preemption, a
//                 retention policy and (in a cluster) tiers and disaggregation are refused
#pragma once

#include <optional>

#include "core/engine/capacity_plan.h"
#include "core/model/device_spec.h"
#include "core/model/model_spec.h"
#include "simulator/cost/execution_profile.h"
#include "simulator/engine/engine.h"
#include "simulator/scenario/scenario.h"

namespace kvsim::sim {

struct EngineSetup {
  Scenario scenario;
  ModelSpec model;
  DeviceSpec device;
  CapacityQuery capacity_query;  // what `kvsim capacity` would be asked
  EngineQuery engine_query;      // and under which engine
  CapacityResult capacity;
  std::optional<EngineBudget> engine_budget;  // the engine's terms (empty: no params)
  EngineConfig engine;                        // num_blocks from capacity (or the override)
  ExecutionProfile execution;  // how the engine runs its kernels (the cost model's input)
  // Speculative decoding: the model the drafter's passes are costed as (speculative_setup.h);
  // `capacity` above (the pool) holds its weights and KV layers beside the target's.
  std::optional<ModelSpec> draft_model;
  std::optional<CapacityResult> draft_capacity;   // the drafter alone: its cost model's
  std::optional<CapacityResult> target_capacity;  // the target alone: the target's cost model's

  // What the target's cost model reads (its KV per layer and weights): the capacity of the
  // model alone.
  const CapacityResult& cost_capacity() const {
    return target_capacity ? *target_capacity : capacity;
  }
};

// A scenario's model: or device: reference (a preset name, a path or an inline map) loaded.
StatusOr<ModelSpec> resolve_model(const ConfigNode& node);
StatusOr<DeviceSpec> resolve_device(const ConfigNode& node);

// The scenario's engine; its cluster sections are ignored.
StatusOr<EngineSetup> prepare_engine_setup(const Scenario& scenario);

}  // namespace kvsim::sim
