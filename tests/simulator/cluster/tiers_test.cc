// The tiered KV pool in whole runs: the exact time of a load from a lower tier; with a lower
// tier that never evicts, the hit rate of the Mooncake trace equals the trace's infinite-cache
// hit rate (an independent scan); under pressure with every eviction policy, no tier exceeds
// its slots and blocks are conserved across tiers after every instant.
#include <gtest/gtest.h>

#include "simulator/cluster/cluster_summary.h"
#include "simulator/simulation.h"
#include "tests/simulator/cluster/cluster_test_util.h"
#include "tests/simulator/mooncake_scan.h"
#include "tests/simulator/run_scenario.h"
#include "tests/test_data.h"

namespace kvsim::sim {
namespace {

using testing::dram_tier;
using testing::grouped;
using testing::kMiB;
using testing::kMs;
using testing::pressure_workload;
using testing::run_cluster;
using testing::small_cluster;

// A (10 shared blocks + 1 own) runs; B, larger, pushes A's blocks out of a 20-block HBM into
// DRAM (tail first: A's own block and shared blocks 9..1; block 0 stays); C, sharing A's
// prefix, hits block 0 in HBM and blocks 1..9 in DRAM, waits for their load, then computes.
TEST(Tiers, ALowerTierHitCostsALoadAtTheTiersBandwidth) {
  ClusterConfig config = small_cluster({EngineRole::kColocated}, 21);  // 20 + the null block
  config.tiers.push_back(dram_tier(100, 10, kMs / 2));  // 10 MiB per ms, 0.5 ms per load
  auto run = run_cluster(config,
                         {grouped(0, 0, 176, 2, 0, 160), testing::request(1, 3 * kMs, 300, 2),
                          grouped(2, 6 * kMs, 176, 2, 0, 160)},
                         kMs);
  ASSERT_EQ(run->recorder.finished.size(), 3u);
  std::vector<TransferRecord> loads;
  for (const TransferRecord& t : run->recorder.transfers) {
    if (t.kind == TransferKind::kTierLoad) loads.push_back(t);
  }
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].request_id, 2u);
  EXPECT_EQ(loads[0].tier, 0);
  EXPECT_EQ(loads[0].bytes, 9 * kMiB);
  EXPECT_EQ(loads[0].ready_ns, 6 * kMs);
  EXPECT_EQ(loads[0].start_ns, 6 * kMs);
  EXPECT_EQ(loads[0].end_ns - loads[0].start_ns, kMs / 2 + 9 * kMs / 10);  // latency + bytes/bw
  const RequestRecord* c = run->recorder.find(2);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->cached_prompt_tokens, 160u);
  EXPECT_EQ(c->lower_hit_tokens[0], 144u);
  EXPECT_EQ(c->first_scheduled_ns, loads[0].end_ns);        // the prefill waits for the load
  EXPECT_EQ(c->first_token_ns, loads[0].end_ns + 1 * kMs);  // then its last 16 tokens
  const ClusterSummary summary = summarize_cluster(*run->cluster);
  ASSERT_EQ(summary.tiers.size(), 1u);
  EXPECT_DOUBLE_EQ(summary.hbm_hit_rate, 16.0 / 652);
  EXPECT_DOUBLE_EQ(summary.tiers[0].prefix_cache_hit_rate, 144.0 / 652);
  EXPECT_EQ(summary.tiers[0].load_bytes, 9 * kMiB);
  EXPECT_GE(summary.tiers[0].stored_blocks, 10u);
}

// Tiers fill, evict and hit under pressure_workload(); invariants after every instant.
TEST(Tiers, NoTierExceedsItsSlotsAndBlocksAreConservedWithEveryPolicy) {
  for (const EvictionKind policy : {EvictionKind::kLru, EvictionKind::kLfu, EvictionKind::kFifo}) {
    SCOPED_TRACE(eviction_name(policy));
    ClusterConfig config = testing::pressured_tiers(policy, 150);
    auto run = run_cluster(config, pressure_workload(), kMs / 4, 1000);
    EXPECT_EQ(run->recorder.finished.size(), 400u);
    EXPECT_GT(run->recorder.instants, 400u);
    const ClusterSummary summary = summarize_cluster(*run->cluster);
    ASSERT_EQ(summary.tiers.size(), 2u);
    for (const TierSummary& tier : summary.tiers) {
      EXPECT_GT(tier.evicted_blocks, 0u) << tier.name << " never filled up";
      EXPECT_GT(tier.hit_blocks, 0u) << tier.name << " never served a hit";
      EXPECT_LE(tier.usage_peak, 1.0);
    }
    EXPECT_EQ(summary.tiers[0].slots, 80u);   // 40 per replica
    EXPECT_EQ(summary.tiers[1].slots, 150u);  // one shared pool
  }
}

TEST(Tiers, ASharedTierNeedsOneBlockGeometry) {
  ClusterConfig config = small_cluster({EngineRole::kColocated, EngineRole::kColocated}, 60);
  config.replicas[1].engine.cache.block_size = 32;
  TierConfig tier = dram_tier(40, 10, 0);
  tier.shared = true;
  config.tiers.push_back(tier);
  std::vector<std::unique_ptr<CostModel>> costs;
  costs.push_back(std::make_unique<testing::FixedCostModel>(kMs));
  costs.push_back(std::make_unique<testing::FixedCostModel>(kMs));
  const auto cluster =
      Cluster::create(config, std::move(costs),
                      std::make_unique<testing::VectorSource>(std::vector<RequestSpec>{}));
  ASSERT_FALSE(cluster.is_ok());
  EXPECT_NE(cluster.status().message().find("one block geometry"), std::string::npos)
      << cluster.status().message();
}

Summary simulate(const std::vector<std::string>& overrides) {
  return testing::run_scenario("mooncake-conversation", overrides);
}

// HBM of 2,000 blocks of 512 tokens (it evicts), a DRAM tier with room for every block of the
// trace (it never evicts): every block ever cached stays findable in HBM or DRAM, so the
// overall hit rate is the trace's infinite-cache hit rate.
TEST(Tiers, InfiniteLowerTierGivesTheInfiniteCacheHitRateOfTheMooncakeTrace) {
  KVSIM_REQUIRE_DATA("traces/conversation_trace.jsonl");
  const double expected =
      testing::scan_hit_rate(::kvsim::testing::data_dir() / "traces" / "conversation_trace.jsonl");
  const std::vector<std::string> base = {"cache.block_size=512", "cache.num_blocks_override=2000",
                                         "scheduler.chunked_prefill=false",
                                         "scheduler.max_num_batched_tokens=131072"};
  const Summary hbm_only = simulate(base);
  EXPECT_LT(hbm_only.prefix_cache_hit_rate, expected - 0.05) << "HBM alone should evict";
  auto tiered = base;
  // 320,000 slots of 28 MiB (qwen2.5-7b, 512 tokens): more than the trace's 288,500 blocks.
  tiered.insert(tiered.end(), {"tiers.dram.capacity_gib=8750", "tiers.dram.bandwidth_gbps=25"});
  const Summary summary = simulate(tiered);
  EXPECT_EQ(summary.requests_completed, 12031u);
  const ClusterSummary* cluster = cluster_summary_of(summary);
  ASSERT_NE(cluster, nullptr);
  ASSERT_EQ(cluster->tiers.size(), 1u);
  EXPECT_EQ(cluster->tiers[0].evicted_blocks, 0u);
  EXPECT_GT(cluster->tiers[0].hit_blocks, 0u);
  EXPECT_DOUBLE_EQ(summary.prefix_cache_hit_rate, expected);
  EXPECT_NEAR(cluster->hbm_hit_rate + cluster->tiers[0].prefix_cache_hit_rate, expected, 1e-12);
}

}  // namespace
}  // namespace kvsim::sim
