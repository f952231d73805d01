// ClusterSetup: a cluster scenario resolved and sized — one engine setup per replica, the
// routers, the KV link and the lower tiers — the cluster counterpart of EngineSetup
// (simulator/setup/engine_setup.h); the façade's prepare_simulation() calls prepare_cluster().
//
// Each replica is sized exactly as a lone engine of its group would be (the same capacity
// planner call, core/engine/capacity.h: `kvsim capacity` with the group's device, num_devices,
// block size and mem_fraction prints its num_blocks), so heterogeneous replicas (an A100
// beside an Ascend 910B) each get their own block count, block size and cost model.
// A replica is one attention-DP rank of its group's layout (docs/cluster.md "Parallel layouts
// per pool"), as a lone engine with a parallel: section simulates one: its pool is one rank's,
// and its requests' KV lives on the DP rank's devices, attention TP x pp of them (all tp x pp
// without DP attention), whatever the other side of a transfer holds:
//   replica devices            = attention TP x pp (ParallelLayout::dp_rank_devices)
//   replica KV bytes per block = CapacityResult::kv_bytes_per_block x replica devices (every
//                                device's shard: what a KV transfer lands on the decode
//                                replica, or a tier slot holds)
//   tier slots                 = floor(capacity_gib x 2^30 / replica KV bytes per block)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/engine/capacity.h"
#include "core/engine/parallel_layout.h"
#include "core/model/device_spec.h"
#include "core/model/link_spec.h"
#include "core/model/model_spec.h"
#include "simulator/cluster/cluster.h"
#include "simulator/scenario/scenario.h"

namespace kvsim::sim {

struct ReplicaSetup {
  std::string name;  // r0, r1, ...
  EngineRole role = EngineRole::kColocated;
  DeviceSpec device;
  uint32_t num_devices = 1;  // the TP group's devices (parallel.tp), as the cost model takes them
  ParallelLayout parallel;   // its group's layout (tp = num_devices)
  CapacityQuery capacity_query;
  CapacityResult capacity;
  EngineConfig engine;
};

struct ClusterSetup {
  std::vector<ReplicaSetup> replicas;
  RouterKind router = RouterKind::kRoundRobin;
  RouterKind decode_router = RouterKind::kLeastLoaded;
  bool disaggregated = false;
  LinkSpec link;  // disaggregated only
  std::vector<TierConfig> tiers;
  uint32_t tier_chunk_tokens = 0;  // ClusterConfig's
  TierWritePolicy tier_write_policy = TierWritePolicy::kOnEvict;
};

// The groups the cluster is made of: cluster.replicas as written, or one group of the
// scenario's device (prefill + decode replicas when disaggregated, else one replica).
std::vector<ReplicaGroup> replica_groups(const Scenario& scenario);
// The scenario as one engine of `group` would see it: the group's device, num_devices,
// parallel layout, block size, mem_fraction and block override, the cluster sections cleared.
Scenario replica_scenario(const Scenario& scenario, const ReplicaGroup& group);

// Resolves the scenario's cluster sections: each replica group's variant of the scenario
// (its device, num_devices, block size, mem_fraction, block override) is set up as a lone
// engine would be (prepare_engine_setup, simulator/setup/engine_setup.h).
StatusOr<ClusterSetup> prepare_cluster(const Scenario& scenario);

// The cluster's configuration for simulator/cluster/cluster.h.
ClusterConfig cluster_config(const ClusterSetup& setup);

}  // namespace kvsim::sim
