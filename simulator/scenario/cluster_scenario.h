// The scenario sections of a cluster: `cluster:`, `disaggregation:` and `tiers:`, as read from
// YAML (through ConfigReader: errors name file:line:column, unknown keys list the valid ones).
// A scenario with none of them is one engine, run as before; with any of them it runs as a
// cluster (simulator/cluster/cluster.h) of replicas of the scenario's model.
//
//   cluster:
//     router: round_robin        # round_robin, least_loaded, prefix_aware (arrivals)
//     replicas: 4                # a count of the scenario's device x num_devices, or groups:
//     # replicas:
//     #   - {count: 2, device: a100-80g}
//     #   - {count: 2, device: ascend-910b3, num_devices: 1, block_size: 128,
//     #      mem_fraction: 0.9, num_blocks_override: 0}
//     #   - {count: 64, parallel: {tp: 64, dp: 64, ep: 64}}   # a pool's own layout
//   disaggregation:              # xPyD: the first `prefill` replicas prefill, the next decode
//     prefill: 1
//     decode: 1
//     link: rdma-8x200g          # presets/links/ name, a file, or {bandwidth_gbps, latency_s,
//                                # source}
//     decode_router: least_loaded
//   tiers:                       # below HBM, top to bottom, in the order written
//     chunk_tokens: 256          # the tiers' unit, a multiple of the block size (default: one
//                                # block)
//     write_policy: write_through  # on_evict (default) or write_through
//     dram: {capacity_gib: 256, bandwidth_gbps: 32, latency_s: 5e-6, eviction: lru,
//            shared: false}
//     ssd:  {capacity_gib: 2048, bandwidth_gbps: 6, latency_s: 1e-4}
//
// A group's `parallel:` is read as the scenario's (same fields, same checks: tp is the group's
// num_devices, dp and ep divide it) and replaces the scenario's layout for its replicas; a group
// without one keeps the scenario's dp, ep and pp over its own num_devices. A replica is one DP
// rank (docs/cluster.md "Parallel layouts per pool"): its pool, its requests and its KV are one
// attention-DP rank's, on attention TP x pp devices; `count` counts DP ranks.
//
// Without `cluster.replicas` a disaggregated cluster has prefill + decode replicas of the
// scenario's device, and a colocated one a single replica. capacity_gib: 0 leaves a tier out
// (so `--set tiers.ssd.capacity_gib=0` compares HBM+DRAM against HBM+DRAM+SSD).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/cache/eviction_policy.h"
#include "core/config/config_node.h"
#include "core/engine/parallel_layout.h"
#include "simulator/cluster/router.h"
#include "simulator/cluster/tier_policy.h"

namespace kvsim::sim {

struct ReplicaGroup {
  uint32_t count = 1;
  ConfigNode device;                       // null: the scenario's device
  uint32_t num_devices = 0;                // 0: the scenario's
  uint32_t block_size = 0;                 // 0: the scenario's cache.block_size
  double mem_fraction = 0;                 // 0: the scenario's cache.mem_fraction
  uint64_t num_blocks_override = 0;        // 0: the scenario's cache.num_blocks_override
  std::optional<ParallelLayout> parallel;  // empty: the scenario's, over the group's num_devices
  ConfigNode parallel_node;                // the group's parallel: map (errors point at it)
};

struct ClusterSection {
  bool present = false;
  RouterKind router = RouterKind::kRoundRobin;  // arrivals (simulator/cluster/router.h)
  std::vector<ReplicaGroup> replicas;           // empty: see above
};

struct DisaggregationSection {
  bool present = false;
  uint32_t prefill = 1;                                 // prefill-only replicas (the first ones)
  uint32_t decode = 1;                                  // decode-only replicas (the next ones)
  ConfigNode link = ConfigNode::scalar("rdma-8x200g");  // preset name, path or inline map
  RouterKind decode_router = RouterKind::kLeastLoaded;  // prefilled requests over the decode pool
};

struct TierSection {
  std::string name;                            // the key: dram, ssd, ...
  double capacity_gib = 0;                     // per replica, or of the shared pool; 0 = left out
  double bandwidth_gbps = 0;                   // each replica's path from the tier into HBM, GB/s
  double latency_s = 0;                        // per load
  EvictionKind eviction = EvictionKind::kLru;  // lru, lfu or fifo (none caches nothing)
  bool shared = false;                         // one pool for the cluster
};

struct TiersSection {
  bool present = false;
  std::vector<TierSection> tiers;  // top to bottom
  uint32_t chunk_tokens = 0;       // tokens per chunk (simulator/cluster/tier_policy.h); 0: a block
  TierWritePolicy write_policy = TierWritePolicy::kOnEvict;
};

// Reads the three sections (each may be null: absent). `base_dir` resolves a link file path;
// `scenario_devices` is the scenario's num_devices (a group's parallel.tp defaults to it).
Status read_cluster_sections(const ConfigNode* cluster, const ConfigNode* disaggregation,
                             const ConfigNode* tiers, const std::string& base_dir,
                             uint32_t scenario_devices, ClusterSection* cluster_out,
                             DisaggregationSection* disagg_out, TiersSection* tiers_out);

}  // namespace kvsim::sim
