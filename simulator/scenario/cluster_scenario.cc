#include "simulator/scenario/cluster_scenario.h"

#include <fmt/format.h>

#include "core/base/enum_names.h"
#include "core/config/config_reader.h"
#include "simulator/cluster/router.h"
#include "simulator/scenario/scenario.h"

namespace kvsim::sim {
namespace {

constexpr uint32_t kMaxReplicas = 4096;
constexpr uint32_t kMaxTiers = 4;  // kMaxLowerTiers (simulator/engine/sim_request.h)

// A group's parallel: is read as the scenario's (read_parallel_layout): tp defaults to the
// group's num_devices, else the scenario's, and must agree with a num_devices the group gives.
Status read_group(const ConfigNode& node, const std::string& what, const std::string& base_dir,
                  uint32_t scenario_devices, ReplicaGroup* group) {
  ConfigReader r(node, what);
  r.optional("count", &group->count, 1u, kMaxReplicas);
  r.optional("num_devices", &group->num_devices, 1u, 4096u);
  r.optional("block_size", &group->block_size, 1u, 1u << 20);
  r.optional("mem_fraction", &group->mem_fraction, 1e-6, 1.0);
  r.optional("num_blocks_override", &group->num_blocks_override, uint64_t{0},
             uint64_t{0xFFFFFFFDu});
  const ConfigNode* device = r.child("device");
  const ConfigNode* parallel = r.child("parallel");
  KVSIM_RETURN_IF_ERROR(r.finish());
  if (device != nullptr) {
    KVSIM_ASSIGN_OR_RETURN(group->device, read_preset_ref(*device, what + ".device", base_dir));
  }
  if (parallel != nullptr && !parallel->is_null()) {
    const bool devices_given = group->num_devices > 0;
    KVSIM_ASSIGN_OR_RETURN(
        group->parallel,
        read_parallel_layout(*parallel, what + ".parallel",
                             devices_given ? group->num_devices : scenario_devices, devices_given));
    group->num_devices = group->parallel->tp;
    group->parallel_node = *parallel;
  }
  return Status::ok();
}

// replicas: a count, or a list of groups.
Status read_replicas(const ConfigNode& node, const std::string& base_dir, uint32_t scenario_devices,
                     ClusterSection* out) {
  if (node.is_scalar()) {
    ReplicaGroup group;
    uint64_t count = 0;
    const Status parsed = parse_uint64(node.text(), &count);
    if (!parsed.is_ok() || count == 0 || count > kMaxReplicas) {
      return error_at(node.mark(),
                      fmt::format("cluster.replicas: expected a count in [1, {}] or a list of "
                                  "groups {{count, device, num_devices, ...}}",
                                  kMaxReplicas));
    }
    group.count = static_cast<uint32_t>(count);
    out->replicas.push_back(std::move(group));
    return Status::ok();
  }
  if (!node.is_sequence() || node.items().empty()) {
    return error_at(node.mark(),
                    "cluster.replicas: expected a count or a non-empty list of groups");
  }
  uint64_t total = 0;
  for (size_t i = 0; i < node.items().size(); ++i) {
    ReplicaGroup group;
    KVSIM_RETURN_IF_ERROR(read_group(node.items()[i], fmt::format("cluster.replicas[{}]", i),
                                     base_dir, scenario_devices, &group));
    total += group.count;
    out->replicas.push_back(std::move(group));
  }
  if (total > kMaxReplicas) {
    return error_at(node.mark(),
                    fmt::format("cluster.replicas: more than {} replicas in all", kMaxReplicas));
  }
  return Status::ok();
}

Status read_cluster(const ConfigNode& node, const std::string& base_dir, uint32_t scenario_devices,
                    ClusterSection* out) {
  ConfigReader r(node, "cluster");
  r.optional_with("router", &out->router, parse_into<parse_router>);
  const ConfigNode* replicas = r.child("replicas");
  KVSIM_RETURN_IF_ERROR(r.finish());
  out->present = true;
  if (replicas != nullptr) {
    KVSIM_RETURN_IF_ERROR(read_replicas(*replicas, base_dir, scenario_devices, out));
  }
  return Status::ok();
}

Status read_disaggregation(const ConfigNode& node, const std::string& base_dir,
                           DisaggregationSection* out) {
  ConfigReader r(node, "disaggregation");
  r.optional("prefill", &out->prefill, 1u, kMaxReplicas);
  r.optional("decode", &out->decode, 1u, kMaxReplicas);
  r.optional_with("decode_router", &out->decode_router, parse_into<parse_router>);
  const ConfigNode* link = r.child("link");
  KVSIM_RETURN_IF_ERROR(r.finish());
  out->present = true;
  if (link != nullptr) {
    KVSIM_ASSIGN_OR_RETURN(out->link, read_preset_ref(*link, "disaggregation.link", base_dir));
  }
  return Status::ok();
}

Status read_tier(const std::string& name, const ConfigNode& node, TierSection* out) {
  const std::string what = "tiers." + name;
  ConfigReader r(node, what);
  out->name = name;
  r.required("capacity_gib", &out->capacity_gib, 0.0, 1e9);
  r.required("bandwidth_gbps", &out->bandwidth_gbps, 1e-6, 1e7);
  r.optional("latency_s", &out->latency_s, 0.0, 10.0);
  r.optional_with("eviction", &out->eviction, parse_into<parse_eviction>);
  r.optional("shared", &out->shared);
  if (r.status().is_ok() && out->eviction == EvictionKind::kNone) {
    r.fail(*node.find("eviction"),
           what +
               ".eviction: none caches nothing, and a tier exists to cache; use lru, lfu or "
               "fifo");
  }
  return r.finish();
}

// The two fields beside the tier maps; every other key is a tier.
constexpr std::string_view kChunkTokensKey = "chunk_tokens";
constexpr std::string_view kWritePolicyKey = "write_policy";

Status read_tier_policy(const ConfigNode& node, TiersSection* out) {
  ConfigReader r(node, "tiers");
  r.optional(kChunkTokensKey, &out->chunk_tokens, 1u, 1u << 24);
  r.optional_with(kWritePolicyKey, &out->write_policy, parse_into<parse_tier_write_policy>);
  for (const auto& entry : node.entries()) r.allow(entry.first);
  return r.finish();
}

Status read_tiers(const ConfigNode& node, TiersSection* out) {
  if (!node.is_map()) {
    return error_at(node.mark(),
                    "tiers: expected a map of tiers below HBM, top to bottom, e.g. "
                    "{dram: {capacity_gib: 256, bandwidth_gbps: 32}, ssd: {...}}, and "
                    "optionally chunk_tokens and write_policy");
  }
  out->present = true;
  KVSIM_RETURN_IF_ERROR(read_tier_policy(node, out));
  for (const auto& [name, tier] : node.entries()) {
    if (name == kChunkTokensKey || name == kWritePolicyKey) continue;
    if (name == "hbm") {
      return error_at(
          tier.mark(),
          "tiers.hbm: HBM is the device's own pool (its size comes from the "
          "capacity planner, its eviction from cache.eviction); list the tiers below it");
    }
    TierSection section;
    KVSIM_RETURN_IF_ERROR(read_tier(name, tier, &section));
    if (section.capacity_gib > 0) out->tiers.push_back(std::move(section));
  }
  if (out->tiers.size() > kMaxTiers) {
    return error_at(node.mark(),
                    fmt::format("tiers: at most {} tiers below HBM with capacity", kMaxTiers));
  }
  return Status::ok();
}

}  // namespace

Status read_cluster_sections(const ConfigNode* cluster, const ConfigNode* disaggregation,
                             const ConfigNode* tiers, const std::string& base_dir,
                             uint32_t scenario_devices, ClusterSection* cluster_out,
                             DisaggregationSection* disagg_out, TiersSection* tiers_out) {
  if (cluster != nullptr) {
    KVSIM_RETURN_IF_ERROR(read_cluster(*cluster, base_dir, scenario_devices, cluster_out));
  }
  if (disaggregation != nullptr) {
    KVSIM_RETURN_IF_ERROR(read_disaggregation(*disaggregation, base_dir, disagg_out));
  }
  if (tiers != nullptr) KVSIM_RETURN_IF_ERROR(read_tiers(*tiers, tiers_out));
  if (disagg_out->present && !cluster_out->replicas.empty()) {
    uint64_t total = 0;
    for (const ReplicaGroup& group : cluster_out->replicas) total += group.count;
    if (total != uint64_t{disagg_out->prefill} + disagg_out->decode) {
      return error_at(disaggregation->mark(),
                      fmt::format("disaggregation: prefill {} + decode {} replicas, but "
                                  "cluster.replicas has {} (the first `prefill` of them prefill, "
                                  "the rest decode)",
                                  disagg_out->prefill, disagg_out->decode, total));
    }
  }
  return Status::ok();
}

}  // namespace kvsim::sim
