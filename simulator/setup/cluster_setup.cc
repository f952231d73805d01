#include "simulator/setup/cluster_setup.h"

#include <fmt/format.h>

#include <cmath>

#include "core/base/check.h"
#include "core/base/units.h"
#include "simulator/setup/engine_setup.h"

namespace kvsim::sim {

std::vector<ReplicaGroup> replica_groups(const Scenario& s) {
  if (!s.cluster.replicas.empty()) return s.cluster.replicas;
  ReplicaGroup group;
  group.count = s.disaggregation.present ? s.disaggregation.prefill + s.disaggregation.decode : 1;
  return {group};
}

namespace {

StatusOr<LinkSpec> resolve_link(const ConfigNode& node) {
  if (node.is_map()) return link_from_config(node, "inline-link");
  auto link = load_link(node.text());
  if (!link.is_ok())
    return error_at(node.mark(), "disaggregation.link: " + link.status().message());
  return link;
}

std::vector<TierConfig> tier_configs(const TiersSection& section) {
  std::vector<TierConfig> tiers;
  for (const TierSection& t : section.tiers) {
    TierConfig tier;
    tier.name = t.name;
    tier.shared = t.shared;
    tier.eviction = t.eviction;
    tier.capacity_bytes = t.capacity_gib * kBytesPerGiB;
    tier.bandwidth_bytes_per_s = t.bandwidth_gbps * static_cast<double>(kGB);
    tier.latency_s = t.latency_s;
    tiers.push_back(std::move(tier));
  }
  return tiers;
}

// tiers.chunk_tokens is a multiple of the replica's block size (the error at the field).
Status check_chunk(const Scenario& s, const ReplicaSetup& replica) {
  const Status chunked =
      blocks_per_chunk(s.tiers.chunk_tokens, replica.engine.cache.block_size, replica.name)
          .status();
  const ConfigNode* field = s.tree.find_path("tiers.chunk_tokens");
  if (chunked.is_ok() || field == nullptr) return chunked;
  return error_at(field->mark(), chunked.message());
}

}  // namespace

Scenario replica_scenario(const Scenario& s, const ReplicaGroup& group) {
  Scenario variant = s;
  variant.cluster = ClusterSection{};
  variant.disaggregation = DisaggregationSection{};
  variant.tiers = TiersSection{};
  if (!group.device.is_null()) variant.device = group.device;
  if (group.num_devices > 0) variant.num_devices = group.num_devices;
  if (group.parallel) {
    variant.parallel = *group.parallel;
    // The layout's model checks (ep | experts, ...) then point at the group's fields.
    const Status set = variant.tree.set_path("parallel", group.parallel_node);
    KVSIM_CHECK(set.is_ok(), "a scenario tree is a map");
  }
  variant.parallel.tp = variant.num_devices;
  if (group.block_size > 0) variant.cache.block_size = group.block_size;
  if (group.mem_fraction > 0) variant.cache.mem_fraction = group.mem_fraction;
  if (group.num_blocks_override > 0) variant.cache.num_blocks_override = group.num_blocks_override;
  return variant;
}

StatusOr<ClusterSetup> prepare_cluster(const Scenario& s) {
  ClusterSetup setup;
  setup.router = s.cluster.router;
  setup.decode_router = s.disaggregation.decode_router;
  setup.disaggregated = s.disaggregation.present;
  setup.tiers = tier_configs(s.tiers);
  setup.tier_chunk_tokens = s.tiers.chunk_tokens;
  setup.tier_write_policy = s.tiers.write_policy;
  if (!setup.tiers.empty() && !s.cache.caches_prefixes()) {
    return Status::invalid_argument(
        "tiers: a tiered KV pool keeps prefix blocks; it needs cache.prefix_caching: true and "
        "an eviction policy other than none");
  }
  if (setup.disaggregated) {
    KVSIM_ASSIGN_OR_RETURN(setup.link, resolve_link(s.disaggregation.link));
  }
  for (const ReplicaGroup& group : replica_groups(s)) {
    KVSIM_ASSIGN_OR_RETURN(EngineSetup engine, prepare_engine_setup(replica_scenario(s, group)));
    if (!engine.engine.cache_groups.empty() && (setup.disaggregated || !setup.tiers.empty())) {
      // The connectors move one group's blocks; a hybrid request holds a table per group.
      return Status::invalid_argument(fmt::format(
          "model '{}' is hybrid ({}): tiers and disaggregation move one block table per "
          "request and are not simulated for it; replicas with a router are",
          engine.model.name, describe_layer_groups(engine.model)));
    }
    for (uint32_t i = 0; i < group.count; ++i) {
      ReplicaSetup replica;
      const auto index = static_cast<uint32_t>(setup.replicas.size());
      replica.name = "r" + std::to_string(index);
      if (setup.disaggregated) {
        replica.role =
            index < s.disaggregation.prefill ? EngineRole::kPrefill : EngineRole::kDecode;
      }
      replica.device = engine.device;
      replica.num_devices = engine.scenario.num_devices;
      replica.parallel = engine.scenario.parallel;
      replica.capacity_query = engine.capacity_query;
      replica.capacity = engine.capacity;
      replica.engine = engine.engine;
      replica.engine.replica = index;
      replica.engine.scheduler.role = replica.role;
      if (!setup.tiers.empty()) KVSIM_RETURN_IF_ERROR(check_chunk(s, replica));
      setup.replicas.push_back(std::move(replica));
    }
  }
  return setup;
}

ClusterConfig cluster_config(const ClusterSetup& setup) {
  ClusterConfig config;
  for (const ReplicaSetup& r : setup.replicas) {
    ReplicaConfig replica;
    replica.engine = r.engine;
    replica.name = r.name;
    replica.device = r.device.name;
    // One DP rank (cluster_setup.h): its devices, and its KV over them.
    replica.num_devices = r.parallel.dp_rank_devices();
    replica.kv_bytes_per_block = r.capacity.kv_bytes_per_block * replica.num_devices;
    config.replicas.push_back(std::move(replica));
  }
  config.router = setup.router;
  config.decode_router = setup.decode_router;
  if (setup.disaggregated) {
    config.link.name = setup.link.name;
    config.link.bytes_per_s = setup.link.bandwidth_gbps * static_cast<double>(kGB);
    config.link.latency_ns = std::llround(setup.link.latency_s * kNsPerS);
  }
  config.tiers = setup.tiers;
  config.tier_chunk_tokens = setup.tier_chunk_tokens;
  config.tier_write_policy = setup.tier_write_policy;
  return config;
}

}  // namespace kvsim::sim
