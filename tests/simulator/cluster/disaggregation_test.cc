// Disaggregated prefill/decode on hand-built workloads with a fixed-latency cost model: the
// exact timeline of a request through prefill, KV transfer and decode; a transfer's time is
// bytes / bandwidth + latency; transfers queue on the ports; a decode replica short of blocks
// holds transfers back while the prefill replica keeps the blocks; token accounting.
#include <gtest/gtest.h>

#include "simulator/cluster/cluster_summary.h"
#include "tests/simulator/cluster/cluster_test_util.h"

namespace kvsim::sim {
namespace {

using testing::ClusterRun;
using testing::run_cluster;
using testing::small_cluster;

constexpr int64_t kMs = 1'000'000;
constexpr uint64_t kMiB = 1 << 20;

// 1P1D, 1 MiB blocks of 16 tokens; the link moves 10 MiB in exactly 1 ms, plus 0.5 ms.
ClusterConfig one_p_one_d(uint32_t decode_blocks = 1000) {
  ClusterConfig config = small_cluster({EngineRole::kPrefill, EngineRole::kDecode}, 1000);
  config.replicas[1].engine.cache.num_blocks = decode_blocks;
  config.link.bytes_per_s = 10.0 * kMiB * 1000;
  config.link.latency_ns = kMs / 2;
  return config;
}

std::vector<TransferRecord> kv_transfers(const ClusterRun& run) {
  std::vector<TransferRecord> out;
  for (const TransferRecord& t : run.recorder.transfers) {
    if (t.kind == TransferKind::kKv) out.push_back(t);
  }
  return out;
}

TEST(Disaggregation, OneRequestTimelineAndTransferTimeIsBytesOverBandwidthPlusLatency) {
  auto run = run_cluster(one_p_one_d(), {testing::request(0, 0, 160, 3)}, kMs);
  ASSERT_EQ(run->recorder.finished.size(), 1u);
  const RequestRecord& r = run->recorder.finished[0];
  EXPECT_EQ(r.first_token_ns, 1 * kMs);  // the prefill iteration
  EXPECT_EQ(r.prefill_replica, 0);
  EXPECT_EQ(r.replica, 1);
  const auto transfers = kv_transfers(*run);
  ASSERT_EQ(transfers.size(), 1u);
  const TransferRecord& t = transfers[0];
  EXPECT_EQ(t.bytes, 10 * kMiB);  // ceil(160 / 16) blocks of 1 MiB
  EXPECT_EQ(t.from_replica, 0);
  EXPECT_EQ(t.to_replica, 1);
  EXPECT_EQ(t.ready_ns, 1 * kMs);
  EXPECT_EQ(t.start_ns, 1 * kMs);
  // bytes / bandwidth + latency = 10 MiB / (10 MiB per ms) + 0.5 ms.
  EXPECT_EQ(t.end_ns - t.start_ns, 1 * kMs + kMs / 2);
  EXPECT_EQ(r.kv_arrived_ns, t.end_ns);
  // Two decode iterations after the KV arrived: tokens 2 and 3.
  EXPECT_EQ(r.finish_ns, t.end_ns + 2 * kMs);
  const ClusterSummary summary = summarize_cluster(*run->cluster);
  EXPECT_DOUBLE_EQ(summary.kv_transfer_time_s.p50, 0.0015);
  EXPECT_DOUBLE_EQ(summary.kv_transfer_time_s.p99, 0.0015);
  EXPECT_EQ(summary.kv_transfer_bytes, 10 * kMiB);
  ASSERT_EQ(summary.links.size(), 1u);
  EXPECT_EQ(summary.links[0].name, "r0_to_r1");
  EXPECT_EQ(summary.links[0].bytes, 10 * kMiB);
}

TEST(Disaggregation, PrefillKeepsTheBlocksUntilTheTransferEnds) {
  ClusterConfig config = one_p_one_d();
  std::vector<std::pair<int64_t, uint32_t>> prefill_used;  // (instant, blocks in use on r0)
  auto costs = std::vector<std::unique_ptr<CostModel>>();
  costs.push_back(std::make_unique<testing::FixedCostModel>(kMs));
  costs.push_back(std::make_unique<testing::FixedCostModel>(kMs));
  auto cluster = Cluster::create(
      config, std::move(costs),
      std::make_unique<testing::VectorSource>(std::vector{testing::request(0, 0, 160, 3)}));
  ASSERT_TRUE(cluster.is_ok());
  const Cluster* c = cluster->get();
  (*cluster)->add_instant_callback([&prefill_used, c](int64_t now) {
    prefill_used.emplace_back(now, c->replica(0).cache().pool().num_used_blocks());
  });
  ASSERT_TRUE((*cluster)->run().is_ok());
  // Instants: arrival 0, prefill end 1 ms, transfer end 2.5 ms, decode ends 3.5 and 4.5 ms;
  // the state before each: r0 holds the 10 prompt blocks from the prefill until the KV is in.
  const std::vector<std::pair<int64_t, uint32_t>> expected = {
      {0, 0}, {kMs, 10}, {5 * kMs / 2, 10}, {7 * kMs / 2, 0}, {9 * kMs / 2, 0}};
  EXPECT_EQ(prefill_used, expected);
  EXPECT_EQ(c->replica(0).cache().pool().num_used_blocks(), 0u);
  EXPECT_EQ(c->replica(0).stats().handed_off, 1u);
  EXPECT_EQ(c->replica(1).stats().received, 1u);
}

TEST(Disaggregation, TransfersQueueOnThePorts) {
  auto run = run_cluster(one_p_one_d(),
                         {testing::request(0, 0, 160, 3), testing::request(1, 0, 160, 3)}, kMs);
  const auto transfers = kv_transfers(*run);
  ASSERT_EQ(transfers.size(), 2u);
  EXPECT_EQ(transfers[0].start_ns, 1 * kMs);
  EXPECT_EQ(transfers[1].ready_ns, 1 * kMs);  // both prefilled in one iteration
  EXPECT_EQ(transfers[1].start_ns, transfers[0].end_ns);
  EXPECT_EQ(transfers[1].end_ns - transfers[1].start_ns, 3 * kMs / 2);
  const ClusterSummary summary = summarize_cluster(*run->cluster);
  EXPECT_DOUBLE_EQ(summary.kv_transfer_queue_s.mean, 0.0015 / 2);
  EXPECT_DOUBLE_EQ(summary.kv_transfer_queue_s.p99, 0.0015 * 0.99);
}

TEST(Disaggregation, DecodeShortOfBlocksHoldsTheTransferBack) {
  // 12 decode blocks: one request (10 prompt blocks, 11 at its peak) at a time.
  auto run = run_cluster(one_p_one_d(12),
                         {testing::request(0, 0, 160, 3), testing::request(1, 0, 160, 3)}, kMs);
  ASSERT_EQ(run->recorder.finished.size(), 2u);
  const RequestRecord* first = run->recorder.find(0);
  const RequestRecord* second = run->recorder.find(1);
  ASSERT_TRUE(first != nullptr && second != nullptr);
  const auto transfers = kv_transfers(*run);
  ASSERT_EQ(transfers.size(), 2u);
  // The second transfer is ready only when the first request has left the decode replica.
  EXPECT_EQ(transfers[1].ready_ns, *first->finish_ns);
  EXPECT_EQ(first->finish_ns, 9 * kMs / 2);
  EXPECT_EQ(second->finish_ns, *first->finish_ns + 3 * kMs / 2 + 2 * kMs);
  const ClusterSummary summary = summarize_cluster(*run->cluster);
  EXPECT_DOUBLE_EQ(summary.kv_transfer_block_wait_s.p99,
                   0.0 + 0.99 * (*first->finish_ns - 1 * kMs) / 1e9);
  EXPECT_EQ(run->cluster->replica(1).stats().kv_blocks_peak, 11u);
}

TEST(Disaggregation, OneTokenOutputsFinishOnThePrefillReplica) {
  auto run = run_cluster(one_p_one_d(), {testing::request(0, 0, 100, 1)}, kMs);
  ASSERT_EQ(run->recorder.finished.size(), 1u);
  EXPECT_EQ(run->recorder.finished[0].replica, 0);
  EXPECT_TRUE(kv_transfers(*run).empty());
}

// Many requests through 2P2D with small decode pools (recompute preemptions on decode):
// every request finishes once, every token is accounted for, invariants hold throughout.
TEST(Disaggregation, TwoPrefillTwoDecodeAccountForEveryToken) {
  ClusterConfig config = small_cluster(
      {EngineRole::kPrefill, EngineRole::kPrefill, EngineRole::kDecode, EngineRole::kDecode}, 400);
  config.replicas[2].engine.cache.num_blocks = 90;
  config.replicas[3].engine.cache.num_blocks = 120;
  config.router = RouterKind::kRoundRobin;
  config.decode_router = RouterKind::kLeastLoaded;
  std::vector<RequestSpec> requests;
  uint64_t prompt = 0, output = 0;
  for (uint64_t i = 0; i < 300; ++i) {
    RequestSpec r = testing::request(i, static_cast<int64_t>(i) * kMs / 3,
                                     static_cast<uint32_t>(50 + (i * 37) % 400),
                                     static_cast<uint32_t>(2 + (i * 13) % 60));
    prompt += r.prompt_tokens;
    output += r.output_tokens;
    requests.push_back(r);
  }
  auto run = run_cluster(config, requests, kMs / 2, 2000);
  EXPECT_EQ(run->recorder.finished.size(), 300u);
  EXPECT_TRUE(run->recorder.dropped.empty());
  const EngineStats merged = merged_engine_stats(*run->cluster);
  EXPECT_EQ(merged.output_tokens, output);
  // Prefill replicas compute every prompt token once (prompts are unique, no preemption
  // there); decode replicas compute O - 1 decode tokens each, plus what recompute redid.
  const uint64_t decode_preemptions = run->cluster->replica(2).stats().preemptions_recompute +
                                      run->cluster->replica(3).stats().preemptions_recompute;
  EXPECT_GT(decode_preemptions, 0u) << "the decode pools should be tight enough to preempt";
  EXPECT_EQ(merged.prefill_tokens + merged.decode_tokens,
            prompt + (output - 300) + merged.recomputed_tokens);
  EXPECT_EQ(
      run->cluster->replica(0).stats().handed_off + run->cluster->replica(1).stats().handed_off,
      300u);
  const ClusterSummary summary = summarize_cluster(*run->cluster);
  EXPECT_EQ(summary.kv_transfers, 300u);
  EXPECT_GT(summary.kv_transfer_block_wait_s.p99, 0.0);
}

// Prefill and decode replicas of different block sizes: the decode side hashes the prompt
// at its own size, and its prefix cache serves the shared part of later requests' KV.
TEST(Disaggregation, DecodeBlockSizeOfItsOwnAndDecodeSidePrefixHits) {
  ClusterConfig config = small_cluster({EngineRole::kPrefill, EngineRole::kDecode}, 1000);
  config.replicas[1].engine.cache.block_size = 32;
  std::vector<RequestSpec> requests;
  for (uint64_t i = 0; i < 20; ++i) {
    RequestSpec r = testing::request(i, static_cast<int64_t>(i) * 10 * kMs, 512, 4);
    r.prefix_group = 0;
    r.prefix_tokens = 256;
    requests.push_back(r);
  }
  auto run = run_cluster(config, requests, kMs);
  ASSERT_EQ(run->recorder.finished.size(), 20u);
  const auto transfers = kv_transfers(*run);
  ASSERT_EQ(transfers.size(), 20u);
  EXPECT_EQ(transfers[0].bytes, 16 * kMiB);  // 512 tokens in 32-token decode blocks
  for (size_t i = 1; i < transfers.size(); ++i) {
    EXPECT_EQ(transfers[i].bytes, 8 * kMiB) << "the shared 256 tokens are cached on decode";
  }
}

}  // namespace
}  // namespace kvsim::sim
