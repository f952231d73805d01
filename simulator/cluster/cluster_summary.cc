#include "simulator/cluster/cluster_summary.h"

#include <algorithm>

#include "core/base/text_format.h"
#include "core/base/units.h"

namespace kvsim::sim {
namespace {

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

ReplicaSummary summarize_replica(const Cluster& cluster, size_t r) {
  const Engine& engine = cluster.replica(r);
  const ReplicaConfig& config = cluster.replica_config(r);
  const EngineStats& s = engine.stats();
  const double duration_s = ns_to_s(cluster.stats().last_event_ns);
  ReplicaSummary out;
  out.name = config.name;
  out.role = engine.config().scheduler.role;
  out.device = config.device;
  out.num_devices = config.num_devices;
  out.num_blocks = engine.config().cache.num_blocks;
  out.requests_routed = s.arrivals;
  out.requests_received = s.received;
  out.requests_handed_off = s.handed_off;
  out.requests_completed = s.completed;
  out.requests_dropped = s.dropped_total();
  out.preemptions = s.preemptions_recompute + s.preemptions_swap;
  out.prefill_tokens_per_s = ratio(static_cast<double>(s.prefill_tokens), duration_s);
  out.decode_tokens_per_s = ratio(static_cast<double>(s.decode_tokens), duration_s);
  out.output_tokens_per_s = ratio(static_cast<double>(s.output_tokens), duration_s);
  out.busy_fraction = ratio(static_cast<double>(s.busy_ns), static_cast<double>(s.last_event_ns));
  const double blocks = static_cast<double>(engine.config().cache.num_usable_blocks());
  out.kv_usage_peak = ratio(s.kv_blocks_peak, blocks);
  out.kv_usage_mean =
      ratio(static_cast<double>(s.kv_used_block_ns), static_cast<double>(s.last_event_ns) * blocks);
  return out;
}

// Counts in blocks (a tier's entries are chunks of blocks_per_chunk blocks; shared tiers
// need one block geometry, so every replica has the same chunk).
TierSummary summarize_tier(const Cluster& cluster, size_t t) {
  const TierConfig& config = cluster.config().tiers[t];
  const ClusterStats& stats = cluster.stats();
  TierSummary out;
  out.name = config.name;
  out.shared = config.shared;
  out.eviction = std::string(eviction_name(config.eviction));
  long double resident_ns = 0;
  for (const TierInstance& instance : cluster.tiers()) {
    if (instance.tier != t) continue;
    const ReplicaTiers& owner = *cluster.replica_tiers(instance.owner.value_or(0));
    const uint64_t chunk = owner.blocks_per_chunk();
    const TierStats s = instance.pool->stats();
    out.chunk_tokens = chunk * cluster.replica_config(0).engine.cache.block_size;
    out.hit_chunks += s.hits;
    out.written_bytes += s.stored * owner.bytes_per_chunk();
    out.slots += uint64_t{instance.pool->num_slots()} * chunk;
    out.stored_blocks += s.stored * chunk;
    out.refreshed_blocks += s.refreshed * chunk;
    out.evicted_blocks += s.evicted * chunk;
    out.hit_blocks += s.hits * chunk;
    resident_ns += instance.resident_block_ns * chunk;
    out.usage_peak =
        std::max(out.usage_peak, ratio(instance.peak_resident, instance.pool->num_slots()));
  }
  out.usage_mean = ratio(static_cast<double>(resident_ns),
                         static_cast<double>(stats.last_event_ns) * static_cast<double>(out.slots));
  int64_t queue_ns = 0, write_queue_ns = 0;
  for (size_t r = 0; r < cluster.num_replicas(); ++r) {
    const TierTransferStats& load = cluster.replica_tiers(r)->load_stats(t);
    out.loads += load.transfers;
    out.load_bytes += load.bytes;
    out.load_busy_s += ns_to_s(load.busy_ns);
    queue_ns += load.queue_ns;
    const TierTransferStats& write = cluster.replica_tiers(r)->write_stats(t);
    out.writes += write.transfers;
    out.write_busy_s += ns_to_s(write.busy_ns);
    write_queue_ns += write.queue_ns;
  }
  out.load_queue_s_mean = ratio(ns_to_s(queue_ns), static_cast<double>(out.loads));
  out.write_queue_s_mean = ratio(ns_to_s(write_queue_ns), static_cast<double>(out.writes));
  out.prefix_cache_hit_rate = ratio(static_cast<double>(stats.lower_hit_tokens[t]),
                                    static_cast<double>(stats.prompt_tokens));
  return out;
}

LatencySummary summarize_copy(const LatencySamples& samples) {
  LatencySamples copy = samples;
  return copy.summary();
}

}  // namespace

ClusterSummary summarize_cluster(const Cluster& cluster) {
  const ClusterStats& stats = cluster.stats();
  const ClusterConfig& config = cluster.config();
  ClusterSummary out;
  out.router = std::string(router_name(config.router));
  out.decode_router = std::string(router_name(config.decode_router));
  out.link = config.link.name;
  for (size_t r = 0; r < cluster.num_replicas(); ++r) {
    out.replicas.push_back(summarize_replica(cluster, r));
    out.disaggregated = out.disaggregated || out.replicas.back().role != EngineRole::kColocated;
  }
  for (size_t t = 0; t < config.tiers.size(); ++t) out.tiers.push_back(summarize_tier(cluster, t));
  out.tier_write_through = config.tier_write_policy == TierWritePolicy::kWriteThrough;
  out.tier_load_wait_s = summarize_copy(stats.tier_load_wait_s);
  const size_t n = cluster.num_replicas();
  for (size_t i = 0; i < stats.links.size(); ++i) {
    const KvLinkStats& link = stats.links[i];
    if (link.transfers == 0) continue;
    out.links.push_back({config.replicas[i / n].name + "_to_" + config.replicas[i % n].name,
                         link.transfers, link.bytes, ns_to_s(link.busy_ns)});
  }
  out.hbm_hit_rate =
      ratio(static_cast<double>(stats.hbm_hit_tokens), static_cast<double>(stats.prompt_tokens));
  out.kv_transfers = stats.kv_transfers;
  out.kv_transfer_bytes = stats.kv_transfer_bytes;
  out.kv_transfer_time_s = summarize_copy(stats.kv_transfer_s);
  out.kv_transfer_queue_s = summarize_copy(stats.kv_queue_s);
  out.kv_transfer_block_wait_s = summarize_copy(stats.kv_block_wait_s);
  return out;
}

EngineStats merged_engine_stats(const Cluster& cluster) {
  EngineStats sum;
  for (size_t r = 0; r < cluster.num_replicas(); ++r) {
    const EngineStats& s = cluster.replica(r).stats();
    sum.iterations += s.iterations;
    sum.completed += s.completed;
    for (int i = 0; i < 4; ++i) sum.dropped[i] += s.dropped[i];
    sum.preemptions_recompute += s.preemptions_recompute;
    sum.preemptions_swap += s.preemptions_swap;
    sum.swap_out_bytes += s.swap_out_bytes;
    sum.swap_in_bytes += s.swap_in_bytes;
    sum.prefill_tokens += s.prefill_tokens;
    sum.decode_tokens += s.decode_tokens;
    sum.recomputed_tokens += s.recomputed_tokens;
    sum.output_tokens += s.output_tokens;
    sum.tokens_done += s.tokens_done;
    sum.handed_off += s.handed_off;
    sum.received += s.received;
    sum.busy_ns += s.busy_ns;
    sum.kv_used_block_ns += s.kv_used_block_ns;
    sum.kv_blocks_peak += s.kv_blocks_peak;
  }
  const ClusterStats& stats = cluster.stats();
  sum.events = stats.events;
  sum.arrivals = stats.arrivals;
  sum.last_event_ns = stats.last_event_ns;
  sum.in_system_ns = stats.in_system_ns;
  return sum;
}

namespace {

void append_cluster_json(const ClusterSummary& s, nlohmann::ordered_json* json) {
  nlohmann::ordered_json& j = *json;
  j["num_replicas"] = s.replicas.size();
  nlohmann::ordered_json by_tier;
  by_tier["hbm"] = s.hbm_hit_rate;
  for (const TierSummary& tier : s.tiers) by_tier[tier.name] = tier.prefix_cache_hit_rate;
  j["prefix_cache_hit_rate_by_tier"] = by_tier;
  j["tier_write_through"] = s.tier_write_through ? 1 : 0;
  j["tier_load_wait_s"] = latency_json(s.tier_load_wait_s);
  j["tier_loaded_requests"] = s.tier_load_wait_s.count;
  j["kv_transfers"] = s.kv_transfers;
  j["kv_transfer_bytes"] = s.kv_transfer_bytes;
  j["kv_transfer_time_s"] = latency_json(s.kv_transfer_time_s);
  j["kv_transfer_queue_s"] = latency_json(s.kv_transfer_queue_s);
  j["kv_transfer_block_wait_s"] = latency_json(s.kv_transfer_block_wait_s);
  nlohmann::ordered_json links = nlohmann::ordered_json::object();
  for (const KvLinkSummary& link : s.links) {
    links[link.name] = {
        {"transfers", link.transfers}, {"bytes", link.bytes}, {"busy_s", link.busy_s}};
  }
  j["kv_links"] = links;
  nlohmann::ordered_json tiers = nlohmann::ordered_json::object();
  for (const TierSummary& t : s.tiers) {
    tiers[t.name] = {{"shared", t.shared ? 1 : 0},
                     {"slots", t.slots},
                     {"usage_mean", t.usage_mean},
                     {"usage_peak", t.usage_peak},
                     {"stored_blocks", t.stored_blocks},
                     {"refreshed_blocks", t.refreshed_blocks},
                     {"evicted_blocks", t.evicted_blocks},
                     {"hit_blocks", t.hit_blocks},
                     {"loads", t.loads},
                     {"load_bytes", t.load_bytes},
                     {"load_busy_s", t.load_busy_s},
                     {"load_queue_s_mean", t.load_queue_s_mean},
                     {"prefix_cache_hit_rate", t.prefix_cache_hit_rate},
                     {"chunk_tokens", t.chunk_tokens},
                     {"hit_chunks", t.hit_chunks},
                     {"written_bytes", t.written_bytes},
                     {"writes", t.writes},
                     {"write_busy_s", t.write_busy_s},
                     {"write_queue_s_mean", t.write_queue_s_mean}};
  }
  j["tiers"] = tiers;
  nlohmann::ordered_json replicas = nlohmann::ordered_json::object();
  for (const ReplicaSummary& r : s.replicas) {
    replicas[r.name] = {{"prefill", r.role != EngineRole::kDecode ? 1 : 0},
                        {"decode", r.role != EngineRole::kPrefill ? 1 : 0},
                        {"num_devices", r.num_devices},
                        {"num_blocks", r.num_blocks},
                        {"requests_routed", r.requests_routed},
                        {"requests_received", r.requests_received},
                        {"requests_handed_off", r.requests_handed_off},
                        {"requests_completed", r.requests_completed},
                        {"requests_dropped", r.requests_dropped},
                        {"preemptions", r.preemptions},
                        {"prefill_tokens_per_s", r.prefill_tokens_per_s},
                        {"decode_tokens_per_s", r.decode_tokens_per_s},
                        {"output_tokens_per_s", r.output_tokens_per_s},
                        {"busy_fraction", r.busy_fraction},
                        {"kv_usage_mean", r.kv_usage_mean},
                        {"kv_usage_peak", r.kv_usage_peak}};
  }
  j["replicas"] = replicas;
}

std::string cluster_summary_text(const ClusterSummary& s) {
  std::string text =
      "cluster  " + std::to_string(s.replicas.size()) + " replicas, router " + s.router;
  if (s.disaggregated) text += ", decode router " + s.decode_router + ", link " + s.link;
  text += "\n";
  for (const ReplicaSummary& r : s.replicas) {
    text += "  " + r.name + " " + std::string(engine_role_name(r.role)) + " " +
            std::to_string(r.num_devices) + " x " + r.device + ": " +
            format_count(r.requests_completed) + " completed, prefill " +
            format_fixed(r.prefill_tokens_per_s, 1) + " tok/s, decode " +
            format_fixed(r.decode_tokens_per_s, 1) + " tok/s, busy " +
            format_fixed(r.busy_fraction * 100, 1) + "%, KV mean " +
            format_fixed(r.kv_usage_mean * 100, 1) + "%\n";
  }
  text += "prefix hits by tier: hbm " + format_fixed(s.hbm_hit_rate * 100, 1) + "%";
  for (const TierSummary& t : s.tiers) {
    text += ", " + t.name + " " + format_fixed(t.prefix_cache_hit_rate * 100, 1) + "%";
  }
  text += "\n";
  for (const TierSummary& t : s.tiers) {
    text += "  tier " + t.name + (t.shared ? " (shared)" : "") + ": " + format_count(t.slots) +
            " block slots in chunks of " + std::to_string(t.chunk_tokens) + " tokens, usage mean " +
            format_fixed(t.usage_mean * 100, 1) + "%, " + format_count(t.hit_chunks) +
            " chunk hits, loaded " + format_bytes(static_cast<double>(t.load_bytes)) + " in " +
            format_count(t.loads) + " loads, written " +
            format_bytes(static_cast<double>(t.written_bytes)) +
            (s.tier_write_through ? " through" : " on eviction") + "\n";
  }
  if (s.tier_load_wait_s.count > 0) {
    text += "  waits for tier loads (TTFT they added): " + format_count(s.tier_load_wait_s.count) +
            " requests, mean " + format_fixed(s.tier_load_wait_s.mean * 1e3, 3) + " ms, p99 " +
            format_fixed(s.tier_load_wait_s.p99 * 1e3, 3) + " ms\n";
  }
  if (s.kv_transfers > 0) {
    text += "KV transfers " + format_count(s.kv_transfers) + ", " +
            format_bytes(static_cast<double>(s.kv_transfer_bytes)) + "; time p50 " +
            format_fixed(s.kv_transfer_time_s.p50 * 1e3, 3) + " ms p99 " +
            format_fixed(s.kv_transfer_time_s.p99 * 1e3, 3) +
            " ms; waiting for decode blocks p99 " +
            format_fixed(s.kv_transfer_block_wait_s.p99, 3) + " s\n";
  }
  return text;
}

}  // namespace

void ClusterSummary::append_json(nlohmann::ordered_json* json) const {
  append_cluster_json(*this, json);
}

std::string ClusterSummary::text() const { return cluster_summary_text(*this); }

const ClusterSummary* cluster_summary_of(const Summary& summary) {
  return dynamic_cast<const ClusterSummary*>(summary.extension.get());
}

}  // namespace kvsim::sim
