// Cluster scenarios from YAML: the three sections, their errors (file:line:column, valid keys
// and names listed), heterogeneous replicas sized by the capacity planner each, link presets,
// byte-identical files for one seed, numeric summary fields for sweeps, and a one-replica
// cluster scenario matching the lone engine's files.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/config/presets.h"
#include "core/model/link_spec.h"
#include "core/model/load_spec.h"
#include "simulator/cluster/cluster_summary.h"
#include "simulator/cluster/kv_tiers.h"
#include "simulator/simulation.h"
#include "simulator/sweep/sweep_simulation.h"
#include "tests/simulator/cluster/cluster_test_util.h"

namespace kvsim::sim {
namespace {

namespace fs = std::filesystem;

fs::path write_yaml(const std::string& name, const std::string& text) {
  const fs::path path = fs::path(::testing::TempDir()) / (name + ".yaml");
  std::ofstream(path) << text;
  return path;
}

const char* kBase =
    "model: llama3-8b\n"
    "device: a100-80g\n"
    "cache: {block_size: 16}\n"
    "workload:\n"
    "  synthetic: {num_requests: 300, rate: 20, prompt_tokens: 600, output_tokens: 40,\n"
    "              shared_prefix: {groups: 3, tokens: 256, probability: 0.8}}\n";

StatusOr<Scenario> scenario_from(const std::string& name, const std::string& extra,
                                 const std::vector<std::string>& overrides = {}) {
  return load_scenario(write_yaml(name, std::string(kBase) + extra).string(), overrides);
}

TEST(ClusterScenario, ReadsTheThreeSections) {
  auto s = scenario_from("sections",
                         "cluster:\n"
                         "  router: prefix_aware\n"
                         "  replicas:\n"
                         "    - {count: 1}\n"
                         "    - {count: 2, device: ascend-910b3, block_size: 128}\n"
                         "disaggregation: {prefill: 1, decode: 2, link: hccs-910b,\n"
                         "                 decode_router: round_robin}\n"
                         "tiers:\n"
                         "  chunk_tokens: 256\n"
                         "  write_policy: write_through\n"
                         "  dram: {capacity_gib: 64, bandwidth_gbps: 32, latency_s: 1e-5}\n"
                         "  ssd: {capacity_gib: 0, bandwidth_gbps: 6}\n"
                         "  remote: {capacity_gib: 512, bandwidth_gbps: 20, shared: true,\n"
                         "           eviction: lfu}\n");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  EXPECT_TRUE(s->is_cluster());
  EXPECT_EQ(s->cluster.router, RouterKind::kPrefixAware);
  ASSERT_EQ(s->cluster.replicas.size(), 2u);
  EXPECT_EQ(s->cluster.replicas[1].count, 2u);
  EXPECT_EQ(s->cluster.replicas[1].block_size, 128u);
  EXPECT_EQ(s->disaggregation.decode, 2u);
  EXPECT_EQ(s->disaggregation.decode_router, RouterKind::kRoundRobin);
  ASSERT_EQ(s->tiers.tiers.size(), 2u);  // ssd has no capacity: left out
  EXPECT_EQ(s->tiers.tiers[0].name, "dram");
  EXPECT_EQ(s->tiers.tiers[1].name, "remote");
  EXPECT_TRUE(s->tiers.tiers[1].shared);
  EXPECT_EQ(s->tiers.tiers[1].eviction, EvictionKind::kLfu);
  EXPECT_EQ(s->tiers.chunk_tokens, 256u);  // a multiple of both groups' blocks (16, 128)
  EXPECT_EQ(s->tiers.write_policy, TierWritePolicy::kWriteThrough);

  auto setup = prepare_simulation(*s);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  ASSERT_NE(setup->cluster, nullptr);
  ASSERT_EQ(setup->cluster->replicas.size(), 3u);
  EXPECT_EQ(setup->cluster->replicas[0].role, EngineRole::kPrefill);
  EXPECT_EQ(setup->cluster->replicas[2].role, EngineRole::kDecode);
  EXPECT_EQ(setup->cluster->link.name, "hccs-910b");
  EXPECT_DOUBLE_EQ(setup->cluster->link.bandwidth_gbps, 56);
}

// Each replica's pool is what `kvsim capacity` gives its own device: an A100 80GB and an
// Ascend 910B3 side by side get different block counts, block sizes and bytes per block.
TEST(ClusterScenario, HeterogeneousReplicasAreSizedByTheCapacityPlannerEach) {
  auto s = scenario_from("hetero",
                         "cluster:\n"
                         "  replicas:\n"
                         "    - {count: 1, device: a100-80g}\n"
                         "    - {count: 1, device: ascend-910b3, block_size: 128}\n");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  auto setup = prepare_simulation(*s);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  const auto model = load_model("llama3-8b");
  ASSERT_TRUE(model.is_ok());
  ASSERT_EQ(setup->cluster->replicas.size(), 2u);
  for (const ReplicaSetup& replica : setup->cluster->replicas) {
    DeviceSpec device = replica.device;
    auto capacity = compute_capacity(*model, &device, replica.capacity_query);
    ASSERT_TRUE(capacity.is_ok());
    EXPECT_EQ(replica.engine.cache.num_blocks, *capacity->num_blocks) << replica.device.name;
    EXPECT_EQ(replica.engine.cache.block_size, capacity->block_size);
  }
  EXPECT_EQ(setup->cluster->replicas[0].device.name, "a100-80g");
  EXPECT_EQ(setup->cluster->replicas[1].device.name, "ascend-910b3");
  EXPECT_EQ(setup->cluster->replicas[1].engine.cache.block_size, 128u);
  EXPECT_NE(setup->cluster->replicas[0].engine.cache.num_blocks,
            setup->cluster->replicas[1].engine.cache.num_blocks);
  auto summary = run_simulation(*setup, {});
  ASSERT_TRUE(summary.is_ok()) << summary.status().message();
  EXPECT_EQ(summary->requests_completed, 300u);
  EXPECT_EQ(summary->info.device, "a100-80g+ascend-910b3");
  const ClusterSummary* cluster = cluster_summary_of(*summary);
  ASSERT_NE(cluster, nullptr);
  ASSERT_EQ(cluster->replicas.size(), 2u);
  EXPECT_GT(cluster->replicas[1].requests_completed, 0u);
}

void expect_error(const std::string& name, const std::string& extra,
                  const std::vector<std::string>& parts,
                  const std::vector<std::string>& overrides = {}) {
  testing::expect_scenario_error(scenario_from(name, extra, overrides), name, parts);
}

TEST(ClusterScenario, ErrorsNameTheLineAndListWhatIsValid) {
  expect_error("unknown-key", "cluster: {routr: round_robin}\n",
               {"unknown-key.yaml:7:", "routr", "valid: replicas, router"});
  expect_error("unknown-router", "cluster: {router: fastest}\n",
               {":7:", "unknown router 'fastest'", "round_robin, least_loaded, prefix_aware"});
  expect_error("mismatch", "cluster: {replicas: 3}\ndisaggregation: {prefill: 2, decode: 2}\n",
               {":8:", "prefill 2 + decode 2", "cluster.replicas has 3"});
  expect_error("hbm-tier", "tiers: {hbm: {capacity_gib: 80}}\n",
               {":7:", "HBM is the device's own pool"});
  expect_error("tier-bandwidth", "tiers: {dram: {capacity_gib: 80}}\n", {"bandwidth_gbps"});
  expect_error("tier-policy",
               "tiers: {dram: {capacity_gib: 80, bandwidth_gbps: 1, eviction: mru}}\n",
               {"unknown eviction policy 'mru'", "lru, lfu, fifo, none"});
  expect_error("tier-none",
               "tiers: {dram: {capacity_gib: 80, bandwidth_gbps: 1, eviction: none}}\n",
               {"tier-none.yaml:7:", "tiers.dram.eviction: none caches nothing"});
  expect_error("link", "disaggregation: {link: infiniband-9000}\n",
               {"link.yaml:7:", "unknown link preset 'infiniband-9000'", "rdma-8x200g"});
  expect_error("write-policy",
               "tiers: {write_policy: write_back, dram: {capacity_gib: 80, bandwidth_gbps: 1}}\n",
               {":7:", "unknown tier write policy 'write_back'", "on_evict, write_through"});
  expect_error("chunk-zero",
               "tiers: {chunk_tokens: 0, dram: {capacity_gib: 8, bandwidth_gbps: 1}}\n",
               {":7:", "chunk_tokens"});
  expect_error("chunk-multiple",
               "tiers: {chunk_tokens: 200, dram: {capacity_gib: 8, bandwidth_gbps: 1}}\n",
               {"chunk-multiple.yaml:7:", "200 is not a multiple of replica r0's block size (16"});
  expect_error("chunk-multiple-set", "tiers: {dram: {capacity_gib: 8, bandwidth_gbps: 1}}\n",
               {"--set tiers.chunk_tokens=24", "not a multiple"}, {"tiers.chunk_tokens=24"});
  expect_error("tiers-need-caching", "tiers: {dram: {capacity_gib: 80, bandwidth_gbps: 1}}\n",
               {"prefix_caching"}, {"cache.prefix_caching=false"});
}

TEST(ClusterScenario, EveryLinkPresetLoadsWithItsSource) {
  const std::vector<std::string> names = preset_names(PresetKind::kLink);
  for (const char* wanted : {"rdma-8x200g", "nvlink-a100", "hccs-910b", "pcie-gen4-x16"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), wanted), names.end()) << wanted;
  }
  for (const std::string& name : names) {
    auto link = load_link(name);
    ASSERT_TRUE(link.is_ok()) << name << ": " << link.status().message();
    EXPECT_EQ(link->name, name);
    EXPECT_FALSE(link->source.empty()) << name;
    EXPECT_FALSE(link->description.empty()) << name;
    EXPECT_GT(link->bandwidth_gbps, 0) << name;
  }
  auto inline_link = scenario_from(
      "inline-link",
      "disaggregation: {link: {bandwidth_gbps: 50, latency_s: 2e-6, source: measured}}\n");
  ASSERT_TRUE(inline_link.is_ok()) << inline_link.status().message();
  auto setup = prepare_simulation(*inline_link);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  EXPECT_DOUBLE_EQ(setup->cluster->link.bandwidth_gbps, 50);
  const LinkSpec& link = setup->cluster->link;
  EXPECT_EQ(transfer_ns(100'000'000, link.bandwidth_gbps * 1e9, std::llround(link.latency_s * 1e9)),
            2'000 + 2'000'000);
}

std::string run_into(const Scenario& scenario, const fs::path& dir, bool chrome) {
  auto setup = prepare_simulation(scenario);
  EXPECT_TRUE(setup.is_ok()) << setup.status().message();
  RunOptions options;
  options.out_dir = dir.string();
  if (chrome) options.chrome_trace = (dir / "trace.json").string();
  auto summary = run_simulation(*setup, options);
  EXPECT_TRUE(summary.is_ok()) << summary.status().message();
  return summary.is_ok() ? summary_to_json(*summary, false).dump() : "";
}

TEST(ClusterScenario, SameSeedGivesByteIdenticalClusterFiles) {
  auto s = scenario_from("determinism",
                         "seed: 5\n"
                         "disaggregation: {prefill: 2, decode: 1}\n"
                         "cluster: {router: prefix_aware}\n"
                         "tiers: {dram: {capacity_gib: 2, bandwidth_gbps: 32}}\n",
                         {"cache.num_blocks_override=3000"});
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  const fs::path root = fs::path(::testing::TempDir()) / "cluster-determinism";
  fs::remove_all(root);
  run_into(*s, root / "a", true);
  run_into(*s, root / "b", true);
  for (const char* file : {"summary.json", "requests.csv", "replicas.csv", "tiers.csv",
                           "transfers.csv", "trace.json"}) {
    const std::string a = testing::read_file(root / "a" / file);
    EXPECT_GT(a.size(), 100u) << file;
    EXPECT_EQ(a, testing::read_file(root / "b" / file)) << file;
  }
  const auto trace = nlohmann::json::parse(testing::read_file(root / "a" / "trace.json"));
  EXPECT_GT(trace["traceEvents"].size(), 300u);
}

TEST(ClusterScenario, SummaryFieldsFlattenToNumbersForSweeps) {
  auto s = scenario_from("flatten",
                         "disaggregation: {prefill: 1, decode: 1}\n"
                         "tiers: {dram: {capacity_gib: 2, bandwidth_gbps: 32}}\n");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  auto setup = prepare_simulation(*s);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  auto summary = run_simulation(*setup, {});
  ASSERT_TRUE(summary.is_ok()) << summary.status().message();
  const FlatMetrics metrics = flat_summary_metrics(*summary);
  for (const char* key :
       {"prefix_cache_hit_rate_by_tier.hbm", "prefix_cache_hit_rate_by_tier.dram",
        "kv_transfer_bytes", "kv_transfer_time_s.p50", "kv_transfer_time_s.p99",
        "kv_links.r0_to_r1.bytes", "tiers.dram.usage_mean", "replicas.r0.prefill_tokens_per_s",
        "replicas.r1.output_tokens_per_s", "num_replicas"}) {
    EXPECT_TRUE(metrics.count(key)) << key;
  }
  EXPECT_GT(metrics.at("kv_transfer_bytes"), 0);
  // Every cluster field is a number or an object of numbers.
  const auto json = summary_to_json(*summary, false);
  for (const char* section :
       {"prefix_cache_hit_rate_by_tier", "kv_links", "tiers", "replicas", "kv_transfer_time_s"}) {
    for (const auto& [key, value] : flatten_json(json[section])) {
      EXPECT_TRUE(value.is_number()) << section << "." << key;
    }
  }
}

// The same scenario as one engine and as a one-replica cluster: identical requests and
// identical common summary fields.
TEST(ClusterScenario, OneReplicaClusterScenarioWritesTheLoneEnginesFiles) {
  const fs::path root = fs::path(::testing::TempDir()) / "cluster-one";
  fs::remove_all(root);
  auto lone = scenario_from("one-lone", "");
  auto cluster = scenario_from("one-cluster", "cluster: {router: least_loaded}\n");
  ASSERT_TRUE(lone.is_ok() && cluster.is_ok());
  run_into(*lone, root / "lone", false);
  run_into(*cluster, root / "cluster", false);
  std::istringstream a(testing::read_file(root / "lone" / "requests.csv"));
  std::istringstream b(testing::read_file(root / "cluster" / "requests.csv"));
  size_t rows = 0;
  for (std::string x, y; std::getline(a, x) && std::getline(b, y); ++rows) {
    if (rows == 0) continue;  // the cluster's header has three more columns
    EXPECT_EQ(y.substr(0, x.size() + 1), x + ",") << "row " << rows;
  }
  EXPECT_EQ(rows, 301u);
  auto lone_json = nlohmann::json::parse(testing::read_file(root / "lone" / "summary.json"));
  auto cluster_json = nlohmann::json::parse(testing::read_file(root / "cluster" / "summary.json"));
  for (const auto& [key, value] : lone_json.items()) {
    if (key == "scenario") continue;
    EXPECT_EQ(cluster_json[key], value) << key;
  }
}

}  // namespace
}  // namespace kvsim::sim
