// kvsim simulate on cluster scenarios as a user runs them: bad cluster YAML exits with 2 and
// names file:line:column; the two cluster presets (mooncake-disaggregated with its 1P1D,
// 2P2D and colocated variants; tiered-prefix-pool with HBM only, HBM+DRAM and
// HBM+DRAM+SSD) run through the overrides docs/cluster.md gives, with the summary fields the
// issue asks for; a one-replica cluster prints the lone engine's numbers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/run_cli.h"
#include "tests/test_data.h"

namespace kvsim::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json run_json(const std::string& args) {
  const CliResult result = run_kvsim(args + " --json");
  EXPECT_EQ(result.exit_code, 0) << args << "\n" << result.err;
  return json::parse(result.out, nullptr, /*allow_exceptions=*/false);
}

std::filesystem::path write_scenario(const std::string& name, const std::string& extra) {
  const auto path = std::filesystem::path(::testing::TempDir()) / (name + ".yaml");
  std::ofstream(path) << "model: llama3-8b\n"
                         "device: a100-80g\n"
                         "workload:\n"
                         "  synthetic: {num_requests: 50, rate: 10, prompt_tokens: 300,\n"
                         "              output_tokens: 20}\n"
                      << extra;
  return path;
}

TEST(ClusterCliTest, BadClusterYamlExitsWithTwoAndNamesTheLine) {
  const auto router = write_scenario("cli_bad_router", "cluster:\n  router: fastest\n");
  const CliResult bad_router = run_kvsim("simulate " + router.string());
  EXPECT_EQ(bad_router.exit_code, 2);
  EXPECT_THAT(bad_router.err, HasSubstr("cli_bad_router.yaml:7:11"));
  EXPECT_THAT(bad_router.err, HasSubstr("round_robin, least_loaded, prefix_aware"));

  const auto tier = write_scenario("cli_bad_tier", "tiers:\n  dram: {capacity_gib: 64}\n");
  const CliResult bad_tier = run_kvsim("simulate " + tier.string());
  EXPECT_EQ(bad_tier.exit_code, 2);
  EXPECT_THAT(bad_tier.err, HasSubstr("cli_bad_tier.yaml:7:"));
  EXPECT_THAT(bad_tier.err, HasSubstr("bandwidth_gbps"));

  const auto link = write_scenario("cli_bad_link", "disaggregation:\n  link: carrier-pigeon\n");
  const CliResult bad_link = run_kvsim("simulate " + link.string());
  EXPECT_EQ(bad_link.exit_code, 2);
  EXPECT_THAT(bad_link.err, HasSubstr("cli_bad_link.yaml:7:9"));
  EXPECT_THAT(bad_link.err, HasSubstr("rdma-8x200g"));

  const auto split = write_scenario("cli_split", "disaggregation: {prefill: 1, decode: 1}\n");
  const CliResult bad_set =
      run_kvsim("simulate " + split.string() + " --set disaggregation.decode=two");
  EXPECT_EQ(bad_set.exit_code, 2);
  EXPECT_THAT(bad_set.err, HasSubstr("--set disaggregation.decode=two"));
}

// The same scenario as one engine and as `cluster: {replicas: 1}`: the same decisions, so
// the same latencies and tokens (the cluster adds its own fields only).
TEST(ClusterCliTest, OneReplicaClusterPrintsTheLoneEnginesNumbers) {
  const auto path = write_scenario("cli_lone", "");
  const json lone = run_json("simulate " + path.string());
  const json cluster = run_json("simulate " + path.string() + " --set cluster.replicas=1");
  for (const char* key : {"requests_completed", "sim_duration_s", "ttft_s", "tpot_s",
                          "prefix_cache_hit_rate", "output_tokens", "num_blocks"}) {
    EXPECT_EQ(lone[key], cluster[key]) << key;
  }
  EXPECT_FALSE(lone.contains("replicas"));
  EXPECT_EQ(cluster["replicas"].size(), 1u);
}

const char* const kFewMooncake = " --set workload.max_requests=300";

TEST(ClusterCliTest, MooncakeDisaggregatedRunsOneAndTwoSplitsAndColocated) {
  KVSIM_REQUIRE_DATA("traces/conversation_trace.jsonl");
  const json one = run_json(std::string("simulate mooncake-disaggregated") + kFewMooncake);
  ASSERT_EQ(one["replicas"].size(), 2u);
  EXPECT_EQ(one["replicas"]["r0"]["prefill"], 1);
  EXPECT_EQ(one["replicas"]["r1"]["decode"], 1);
  EXPECT_EQ(one["requests_completed"], 300);
  // Every request with more than one output token hands its KV over once.
  EXPECT_EQ(one["kv_transfers"], one["replicas"]["r0"]["requests_handed_off"]);
  EXPECT_GT(one["kv_transfers"].get<uint64_t>(), 250u);
  EXPECT_GT(one["kv_transfer_bytes"].get<uint64_t>(), 0u);
  EXPECT_GT(one["kv_transfer_time_s"]["p50"].get<double>(), 0.0004);  // the link's latency
  EXPECT_GE(one["kv_transfer_time_s"]["p99"].get<double>(),
            one["kv_transfer_time_s"]["p50"].get<double>());
  EXPECT_GT(one["replicas"]["r1"]["output_tokens_per_s"].get<double>(), 0.0);
  EXPECT_EQ(one["prefix_cache_hit_rate_by_tier"]["hbm"], one["prefix_cache_hit_rate"]);

  const json two = run_json(std::string("simulate mooncake-disaggregated") + kFewMooncake +
                            " --set disaggregation.prefill=2 --set disaggregation.decode=2");
  ASSERT_EQ(two["replicas"].size(), 4u);
  EXPECT_EQ(two["replicas"]["r1"]["prefill"], 1);
  EXPECT_EQ(two["replicas"]["r2"]["decode"], 1);
  EXPECT_EQ(two["num_devices"], 4);
  EXPECT_EQ(two["kv_transfers"], one["kv_transfers"]);

  const json colocated = run_json(std::string("simulate mooncake-disaggregated") + kFewMooncake +
                                  " --set disaggregation=null --set cluster.replicas=2");
  ASSERT_EQ(colocated["replicas"].size(), 2u);
  EXPECT_EQ(colocated["replicas"]["r0"]["decode"], 1);
  EXPECT_EQ(colocated["kv_transfers"], 0);
  EXPECT_EQ(colocated["requests_completed"], 300);
}

TEST(ClusterCliTest, TieredPrefixPoolHitsMoreWithEachTier) {
  KVSIM_REQUIRE_DATA("traces/conversation_trace.jsonl");
  const std::string base = "simulate tiered-prefix-pool --set workload.max_requests=2000";
  const json hbm = run_json(base + " --set tiers=null");
  const json dram = run_json(base + " --set tiers.ssd.capacity_gib=0");
  const json ssd = run_json(base);
  EXPECT_FALSE(hbm.contains("tiers"));
  EXPECT_EQ(dram["tiers"].size(), 1u);
  EXPECT_EQ(ssd["tiers"].size(), 2u);
  const double hbm_rate = hbm["prefix_cache_hit_rate"];
  const double dram_rate = dram["prefix_cache_hit_rate"];
  const double ssd_rate = ssd["prefix_cache_hit_rate"];
  EXPECT_GT(dram_rate, hbm_rate);
  EXPECT_GT(ssd_rate, dram_rate);
  const json& by_tier = ssd["prefix_cache_hit_rate_by_tier"];
  EXPECT_NEAR(
      by_tier["hbm"].get<double>() + by_tier["dram"].get<double>() + by_tier["ssd"].get<double>(),
      ssd_rate, 1e-12);
  EXPECT_GT(by_tier["ssd"].get<double>(), 0.0);
  EXPECT_GT(ssd["tiers"]["ssd"]["load_bytes"].get<uint64_t>(), 0u);
  EXPECT_LE(ssd["tiers"]["dram"]["usage_peak"].get<double>(), 1.0);
}

// The LMCache-style preset: 256-token chunks written through to DRAM and SSD; and the
// block-granular preset in chunks (--set), still demoting on eviction.
TEST(ClusterCliTest, ChunkedPoolsHitWholeChunksAndReportWrites) {
  KVSIM_REQUIRE_DATA("traces/conversation_trace.jsonl");
  const json lmcache =
      run_json("simulate tiered-prefix-pool-lmcache --set workload.max_requests=2000");
  const json chunked = run_json(
      "simulate tiered-prefix-pool --set workload.max_requests=2000 --set tiers.chunk_tokens=256");
  const json hbm = run_json(
      "simulate tiered-prefix-pool --set workload.max_requests=2000 "
      "--set tiers=null");
  EXPECT_EQ(lmcache["tier_write_through"], 1);
  EXPECT_EQ(chunked["tier_write_through"], 0);
  for (const json* run : {&lmcache, &chunked}) {
    EXPECT_GT((*run)["prefix_cache_hit_rate"].get<double>(),
              hbm["prefix_cache_hit_rate"].get<double>() + 0.1);
    EXPECT_GT((*run)["tier_loaded_requests"].get<uint64_t>(), 0u);
    EXPECT_GT((*run)["tier_load_wait_s"]["mean"].get<double>(), 0.0);
    for (const char* tier : {"dram", "ssd"}) {
      const json& t = (*run)["tiers"][tier];
      EXPECT_EQ(t["chunk_tokens"], 256) << tier;
      EXPECT_EQ(t["hit_blocks"].get<uint64_t>(), 16 * t["hit_chunks"].get<uint64_t>()) << tier;
      const uint64_t stored_chunks = t["stored_blocks"].get<uint64_t>() / 16;
      ASSERT_GT(stored_chunks, 0u) << tier;
      const uint64_t chunk_bytes = t["written_bytes"].get<uint64_t>() / stored_chunks;
      EXPECT_EQ(t["written_bytes"].get<uint64_t>(), stored_chunks * chunk_bytes) << tier;
      EXPECT_EQ(t["load_bytes"].get<uint64_t>() % chunk_bytes, 0u) << tier;  // whole chunks
    }
  }
  EXPECT_GT(lmcache["tiers"]["ssd"]["writes"].get<uint64_t>(), 0u);
  EXPECT_EQ(chunked["tiers"]["dram"]["writes"], 0);
  // Written through, each tier holds its own copy: both took the same chunks in.
  EXPECT_EQ(lmcache["tiers"]["dram"]["stored_blocks"].get<uint64_t>() +
                lmcache["tiers"]["dram"]["refreshed_blocks"].get<uint64_t>(),
            lmcache["tiers"]["ssd"]["stored_blocks"].get<uint64_t>() +
                lmcache["tiers"]["ssd"]["refreshed_blocks"].get<uint64_t>());
}

TEST(ClusterCliTest, TextOutputHasTheClusterLines) {
  const auto path = write_scenario("cli_text", "disaggregation: {prefill: 1, decode: 1}\n");
  const CliResult result = run_kvsim("simulate " + path.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("r0 prefill"));
  EXPECT_THAT(result.out, HasSubstr("r1 decode"));
  EXPECT_THAT(result.out, HasSubstr("KV transfers 50, "));
}

// The sweep presets reach both splits and all three pools (docs/cluster.md).
TEST(ClusterCliTest, SweepPresetsListTheSplitsAndThePools) {
  const CliResult splits = run_kvsim("sweep mooncake-disaggregation --dry-run");
  EXPECT_EQ(splits.exit_code, 0) << splits.err;
  EXPECT_THAT(splits.out, HasSubstr("disaggregation.prefill=1,disaggregation.decode=1"));
  EXPECT_THAT(splits.out, HasSubstr("disaggregation.prefill=2,disaggregation.decode=2"));
  const CliResult pools = run_kvsim("sweep tiered-prefix-pool --dry-run");
  EXPECT_EQ(pools.exit_code, 0) << pools.err;
  EXPECT_THAT(pools.out, HasSubstr("tiers.dram.capacity_gib=0,tiers.ssd.capacity_gib=0"));
  EXPECT_THAT(pools.out, HasSubstr("tiers.dram.capacity_gib=128,tiers.ssd.capacity_gib=0"));
  EXPECT_THAT(pools.out, HasSubstr("tiers.dram.capacity_gib=128,tiers.ssd.capacity_gib=1024"));
}

}  // namespace
}  // namespace kvsim::testing
