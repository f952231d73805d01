// ClusterSummary: what a cluster run adds to the summary (simulator/output/metrics.h), and its JSON
// and text. Every JSON field is a number or an object of numbers (replicas, tiers and links
// keyed by name), so `kvsim sweep` flattens all of it into columns.
//
//   prefix_cache_hit_rate_by_tier  {hbm, <tier>...}: prompt tokens of finished requests their
//                                  first admission found in each tier / prompt tokens (they
//                                  add up to prefix_cache_hit_rate)
//   kv_transfers, kv_transfer_bytes  KV sent from prefill to decode replicas
//   kv_transfer_time_s             per transfer, end - start (latency + bytes / bandwidth)
//   kv_transfer_queue_s            per transfer, start - ready (waiting for the ports)
//   kv_transfer_block_wait_s       per transfer, ready - prefill end (waiting for blocks on
//                                  the decode replica: its memory pressure)
//   kv_links.<p>_to_<d>            transfers, bytes, busy_s of one prefill -> decode pair
//   tiers.<name>                   slots (all instances, in blocks), usage_mean / usage_peak
//                                  (resident / slots), stored / refreshed / evicted / hit
//                                  blocks (whole chunks' blocks), loads, load_bytes (loaded up
//                                  into HBM), load_busy_s, load_queue_s_mean, hit rate;
//                                  chunk_tokens, hit_chunks, written_bytes (written down into
//                                  the tier: demoted or written through), writes (write-through
//                                  transfers), write_busy_s, write_queue_s_mean
//   tier_write_through             1 when new KV is written through (tier_policy.h), else 0
//   tier_load_wait_s, tier_loaded_requests
//                                  per request that loaded from a tier, first admission to the
//                                  end of its last load: the TTFT the loads added (mean, p50,
//                                  p90, p99; count: the requests)
//   replicas.<name>                prefill / decode (1 for the roles it plays), num_devices,
//                                  num_blocks, requests routed / received / handed off /
//                                  completed, prefill_tokens_per_s, decode_tokens_per_s,
//                                  output_tokens_per_s (over the run), busy_fraction,
//                                  kv_usage_mean, kv_usage_peak, preemptions
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "simulator/cluster/cluster.h"
#include "simulator/output/metrics.h"

namespace kvsim::sim {

struct ReplicaSummary {
  std::string name;
  EngineRole role = EngineRole::kColocated;
  std::string device;
  uint32_t num_devices = 1;
  uint64_t num_blocks = 0;
  uint64_t requests_routed = 0, requests_received = 0, requests_handed_off = 0;
  uint64_t requests_completed = 0, requests_dropped = 0, preemptions = 0;
  double prefill_tokens_per_s = 0, decode_tokens_per_s = 0, output_tokens_per_s = 0;
  double busy_fraction = 0, kv_usage_mean = 0, kv_usage_peak = 0;
};

struct TierSummary {
  std::string name;
  bool shared = false;
  std::string eviction;
  uint64_t slots = 0;
  double usage_mean = 0, usage_peak = 0;
  uint64_t stored_blocks = 0, refreshed_blocks = 0, evicted_blocks = 0, hit_blocks = 0;
  uint64_t loads = 0, load_bytes = 0;
  double load_busy_s = 0, load_queue_s_mean = 0;
  double prefix_cache_hit_rate = 0;
  uint64_t chunk_tokens = 0, hit_chunks = 0, written_bytes = 0, writes = 0;
  double write_busy_s = 0, write_queue_s_mean = 0;
};

struct KvLinkSummary {
  std::string name;  // "r0_to_r1"
  uint64_t transfers = 0, bytes = 0;
  double busy_s = 0;
};

struct ClusterSummary final : SummaryExtension {
  std::string router, decode_router, link;
  bool disaggregated = false;
  std::vector<ReplicaSummary> replicas;
  std::vector<TierSummary> tiers;
  std::vector<KvLinkSummary> links;  // pairs that carried a transfer
  double hbm_hit_rate = 0;
  bool tier_write_through = false;
  LatencySummary tier_load_wait_s;
  uint64_t kv_transfers = 0, kv_transfer_bytes = 0;
  LatencySummary kv_transfer_time_s, kv_transfer_queue_s, kv_transfer_block_wait_s;

  // SummaryExtension: the fields above in the summary's JSON, and the text lines.
  void append_json(nlohmann::ordered_json* json) const override;
  std::string text() const override;
};

// The summary's cluster part (null for a lone engine's run).
const ClusterSummary* cluster_summary_of(const Summary& summary);

// After cluster.run().
ClusterSummary summarize_cluster(const Cluster& cluster);

// The replicas' counters summed as one engine's (the summary's common fields); the cluster's
// own clock, events, arrivals and requests in the system where a sum would double count.
EngineStats merged_engine_stats(const Cluster& cluster);

}  // namespace kvsim::sim
