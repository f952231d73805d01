// Small clusters for tests: replicas of hand-set pools with a fixed-latency cost model
// (tests/simulator/sim_test_util.h's fakes), an in-memory workload, and a recorder that keeps
// what the cluster reports and checks every invariant after every instant.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "simulator/cluster/cluster.h"
#include "simulator/output/metrics.h"
#include "simulator/simulation.h"
#include "tests/simulator/sim_test_util.h"

namespace kvsim::sim::testing {

// Every finished and dropped request, every transfer; with `check` set, the cluster's
// invariants (caches, tiers, conservation of blocks across tiers) after every instant and
// every tier within its slots.
class ClusterRecorder final : public SimObserver {
 public:
  void on_request_finished(const RequestRecord& r) override { finished.push_back(r); }
  void on_request_dropped(const RequestRecord& r, DropReason reason) override {
    dropped.emplace_back(r.id, reason);
  }
  void on_transfer(const TransferRecord& t) override { transfers.push_back(t); }
  void after_instant() {
    ++instants;
    if (cluster == nullptr) return;
    cluster->check_invariants();
    for (const TierInstance& tier : cluster->tiers()) {
      ASSERT_LE(tier.pool->num_resident(), tier.pool->num_slots()) << tier.pool->name();
    }
  }
  const RequestRecord* find(uint64_t id) const {
    for (const RequestRecord& r : finished) {
      if (r.id == id) return &r;
    }
    return nullptr;
  }

  std::vector<RequestRecord> finished;
  std::vector<std::pair<uint64_t, DropReason>> dropped;
  std::vector<TransferRecord> transfers;
  uint64_t instants = 0;
  const Cluster* cluster = nullptr;
};

struct ClusterRun {
  std::unique_ptr<Cluster> cluster;
  ClusterRecorder recorder;
  MetricsCollector metrics;
};

// A replica of `num_blocks` blocks of `block_size` tokens, 1 MiB per block, one device.
inline ReplicaConfig small_replica(EngineRole role, uint32_t num_blocks, uint32_t block_size = 16) {
  ReplicaConfig replica;
  replica.engine = small_config(num_blocks, block_size);
  replica.engine.scheduler.role = role;
  replica.num_devices = 1;
  replica.kv_bytes_per_block = replica.engine.cache.bytes_per_block;
  return replica;
}

inline ClusterConfig small_cluster(const std::vector<EngineRole>& roles, uint32_t num_blocks,
                                   uint32_t block_size = 16) {
  ClusterConfig config;
  for (size_t r = 0; r < roles.size(); ++r) {
    config.replicas.push_back(small_replica(roles[r], num_blocks, block_size));
    config.replicas.back().name = "r" + std::to_string(r);
  }
  config.link.name = "test-link";
  config.link.bytes_per_s = 1e10;
  config.link.latency_ns = 0;
  return config;
}

// Runs `requests` through a cluster of `config` whose every iteration takes
// base_ns + per_token_ns x new tokens; `check` checks invariants after every instant.
inline std::unique_ptr<ClusterRun> run_cluster(const ClusterConfig& config,
                                               std::vector<RequestSpec> requests, int64_t base_ns,
                                               int64_t per_token_ns = 0, bool check = true) {
  auto out = std::make_unique<ClusterRun>();
  std::vector<std::unique_ptr<CostModel>> costs;
  for (size_t r = 0; r < config.replicas.size(); ++r) {
    costs.push_back(std::make_unique<FixedCostModel>(base_ns, per_token_ns));
  }
  auto cluster = Cluster::create(config, std::move(costs),
                                 std::make_unique<VectorSource>(std::move(requests)));
  EXPECT_TRUE(cluster.is_ok()) << cluster.status().message();
  if (!cluster.is_ok()) return out;
  out->cluster = std::move(*cluster);
  out->cluster->add_observer(&out->recorder);
  out->cluster->add_observer(&out->metrics);
  if (check) out->recorder.cluster = out->cluster.get();
  ClusterRecorder* recorder = &out->recorder;
  out->cluster->add_instant_callback([recorder](int64_t) { recorder->after_instant(); });
  const Status status = out->cluster->run();
  EXPECT_TRUE(status.is_ok()) << status.message();
  recorder->after_instant();  // the final state
  return out;
}

// A file's bytes (empty when it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline constexpr int64_t kMs = 1'000'000;
inline constexpr uint64_t kMiB = 1 << 20;

// A lower tier "dram" of `slots` 1 MiB blocks (small_replica's), `mib_per_ms` into HBM.
inline TierConfig dram_tier(double slots, double mib_per_ms, int64_t latency_ns) {
  TierConfig tier;
  tier.name = "dram";
  tier.capacity_bytes = slots * kMiB;
  tier.bandwidth_bytes_per_s = mib_per_ms * kMiB * 1000;
  tier.latency_s = static_cast<double>(latency_ns) / 1e9;
  return tier;
}

// Two colocated replicas of 60 blocks behind prefix_aware, `policy` evicting in replica 0's
// HBM and in both tiers: a DRAM of 40 slots per replica (10 MiB/ms, 1 us) above one shared
// SSD of `ssd_slots` (2 MiB/ms, 50 us). Under pressure_workload() every level fills and hits.
inline ClusterConfig pressured_tiers(EvictionKind policy, double ssd_slots) {
  ClusterConfig config = small_cluster({EngineRole::kColocated, EngineRole::kColocated}, 60);
  config.router = RouterKind::kPrefixAware;
  config.replicas[0].engine.cache.eviction = policy;
  config.tiers.push_back(dram_tier(40, 10, 1000));
  config.tiers.back().eviction = policy;
  TierConfig ssd = dram_tier(ssd_slots, 2, 50'000);
  ssd.name = "ssd";
  ssd.shared = true;
  ssd.eviction = policy;
  config.tiers.push_back(ssd);
  return config;
}

// A request whose first `prefix_tokens` tokens are prefix group `group`'s.
inline RequestSpec grouped(uint64_t id, int64_t arrival_ns, uint32_t prompt, uint32_t output,
                           uint64_t group, uint32_t prefix_tokens) {
  RequestSpec r = request(id, arrival_ns, prompt, output);
  r.prefix_group = group;
  r.prefix_tokens = prefix_tokens;
  return r;
}

// 400 requests, one every 0.5 ms: shared prefixes of 12 groups (64 to 192 tokens), unique
// tails of 16 to 175 tokens, 1 to 24 output tokens (a seeded LCG).
inline std::vector<RequestSpec> pressure_workload() {
  std::vector<RequestSpec> requests;
  uint64_t state = 12345;
  const auto next = [&state](uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  };
  for (uint64_t i = 0; i < 400; ++i) {
    const auto group = static_cast<uint64_t>(next(12));
    const auto prefix = static_cast<uint32_t>(64 + 32 * (group % 5));
    requests.push_back(grouped(i, static_cast<int64_t>(i) * kMs / 2,
                               prefix + static_cast<uint32_t>(16 + next(160)),
                               static_cast<uint32_t>(1 + next(24)), group, prefix));
  }
  return requests;
}

// The scenario fails to load, or else to set up, with every one of `parts` in the message.
inline void expect_scenario_error(const StatusOr<Scenario>& s, const std::string& name,
                                  const std::vector<std::string>& parts) {
  Status status = s.status();
  if (s.is_ok()) status = prepare_simulation(*s).status();
  ASSERT_FALSE(status.is_ok()) << name;
  for (const std::string& part : parts) {
    EXPECT_NE(status.message().find(part), std::string::npos)
        << name << ": '" << part << "' not in: " << status.message();
  }
}

}  // namespace kvsim::sim::testing
