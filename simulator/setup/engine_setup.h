// EngineSetup: one engine of a scenario resolved and sized — the model and device presets
// loaded, the KV pool sized by the capacity planner, the engine's configuration filled in.
// prepare_engine_setup() is the one place this happens for a run; a cluster sets up each of
// its replicas with it (simulator/setup/cluster_setup.h).
//
//   KV blocks     core/capacity.h's compute_capacity() for (model, device, cache dtype and
//                 quant group, weight dtype, block size, tp = num_devices, mem_fraction), the
//                 NZ padding of NZ devices included, so `kvsim capacity` with the same options
//                 prints the same num_blocks; cache.num_blocks_override replaces it
//   bytes/block   CapacityResult::kv_bytes_per_block (swap transfers, the cost model)
//   host tier     floor(host_swap_gib x 2^30 / bytes per block) blocks
//   retention     cache.retention; "full" on a sliding-window model (Mistral, Phi-3) becomes
//                 window:<its window>, as vLLM frees blocks outside the window
//   context       the model's max_position_embeddings
//   hybrid models (core/model_spec.h is_hybrid) are refused with a message: one block table
//                 per request cannot hold per-group caches (the per-group manager is to come)
#pragma once

#include "core/capacity.h"
#include "core/device_spec.h"
#include "core/model_spec.h"
#include "simulator/engine/engine.h"
#include "simulator/scenario/scenario.h"

namespace kvsim::sim {

struct EngineSetup {
  Scenario scenario;
  ModelSpec model;
  DeviceSpec device;
  CapacityQuery capacity_query;  // what `kvsim capacity` would be asked
  CapacityResult capacity;
  EngineConfig engine;  // num_blocks from capacity (or the override)
};

// The scenario's engine; its cluster sections are ignored.
StatusOr<EngineSetup> prepare_engine_setup(const Scenario& scenario);

}  // namespace kvsim::sim
