// Chunked tiers and the write policy (simulator/cluster/kv_tiers.h): a lookup hits whole
// chunks and loads them whole; write-through moves exactly the bytes of each request's newly
// computed full chunks and HBM's evictions move nothing; a chunk is never split across tiers
// (every entry below HBM is a whole chunk, every hit and load is whole chunks) under pressure
// with every eviction policy and both write policies; with an infinite lower tier the hit
// rate of the Mooncake trace equals a chunk-level scan of its hash_ids.
#include <gtest/gtest.h>

#include "simulator/cluster/cluster_summary.h"
#include "simulator/engine/request_hashes.h"
#include "simulator/simulation.h"
#include "tests/simulator/cluster/cluster_test_util.h"
#include "tests/simulator/mooncake_scan.h"
#include "tests/test_data.h"

namespace kvsim::sim {
namespace {

using testing::dram_tier;
using testing::grouped;
using testing::kMiB;
using testing::kMs;
using testing::run_cluster;
using testing::small_cluster;

constexpr uint32_t kChunkTokens = 64;  // 4 blocks of 16 tokens (1 MiB each)
constexpr uint64_t kChunkBytes = 4 * kMiB;

std::vector<TransferRecord> transfers_of(const testing::ClusterRun& run, TransferKind kind) {
  std::vector<TransferRecord> out;
  for (const TransferRecord& t : run.recorder.transfers) {
    if (t.kind == kind) out.push_back(t);
  }
  return out;
}

// As Tiers.ALowerTierHitCostsALoadAtTheTiersBandwidth, in chunks of 4 blocks: A's prefill
// notes its full chunks 0 and 1 (blocks 0..7; blocks 8..10 are a partial chunk); B pushes
// A's blocks but block 0 out of HBM, and with blocks 7 and 3 chunks 1 and 0 demote. C (11
// blocks, one-token-short limit 10) hits block 0 in HBM, then chunks 0 and 1 in DRAM — not
// chunk 2, which would end at block 12 — loads both whole (8 MiB, block 0 again) and computes
// blocks 8..10.
TEST(TierChunks, ALookupHitsWholeChunksAndLoadsThemWhole) {
  ClusterConfig config = small_cluster({EngineRole::kColocated}, 21);  // 20 + the null block
  config.tiers.push_back(dram_tier(100, 10, kMs / 2));
  config.tier_chunk_tokens = kChunkTokens;
  auto run = run_cluster(config,
                         {grouped(0, 0, 176, 2, 0, 160), testing::request(1, 3 * kMs, 300, 2),
                          grouped(2, 6 * kMs, 176, 2, 0, 160)},
                         kMs);
  ASSERT_EQ(run->recorder.finished.size(), 3u);
  const std::vector<TransferRecord> loads = transfers_of(*run, TransferKind::kTierLoad);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].request_id, 2u);
  EXPECT_EQ(loads[0].bytes, 2 * kChunkBytes);
  EXPECT_EQ(loads[0].start_ns, 6 * kMs);
  EXPECT_EQ(loads[0].end_ns - loads[0].start_ns, kMs / 2 + 8 * kMs / 10);
  EXPECT_TRUE(transfers_of(*run, TransferKind::kTierWrite).empty());  // on_evict writes none
  const RequestRecord* c = run->recorder.find(2);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->cached_prompt_tokens, 128u);  // block 0 in HBM + blocks 1..7 loaded
  EXPECT_EQ(c->lower_hit_tokens[0], 112u);   // the blocks new to HBM
  EXPECT_EQ(c->first_scheduled_ns, loads[0].end_ns);
  EXPECT_EQ(c->first_token_ns, loads[0].end_ns + kMs);
  const TierStats dram = run->cluster->tiers()[0].pool->stats();
  EXPECT_EQ(dram.hits, 2u);
  EXPECT_GE(dram.stored, 2u);  // A's chunks 0 and 1 (and B's, as they leave HBM)
  const ClusterSummary summary = summarize_cluster(*run->cluster);
  EXPECT_FALSE(summary.tier_write_through);
  EXPECT_EQ(summary.tiers[0].hit_chunks, 2u);
  EXPECT_EQ(summary.tiers[0].hit_blocks, 8u);
  EXPECT_EQ(summary.tiers[0].written_bytes, dram.stored * kChunkBytes);  // demoted, new
  EXPECT_EQ(summary.tiers[0].writes, 0u);
}

// Write-through into DRAM and SSD: A (11 full blocks) writes its 2 full chunks into each
// tier as its prefill ends; B (18 blocks, unique) writes its 4 and pushes A but block 0 out
// of HBM, which moves nothing; C hits block 0 in HBM and A's chunks 0..1 in DRAM (8 blocks;
// its chunk 2 is partial: nothing new to write); D (18 blocks) hits the 10 prefix blocks C
// brought back into HBM and writes its chunks 2 and 3 (chunk 2 holds its hit's end: the
// save starts at the chunk holding it, as LMCache aligns its skip down to a chunk).
TEST(TierChunks, WriteThroughMovesExactlyTheNewFullChunks) {
  ClusterConfig config = small_cluster({EngineRole::kColocated}, 21);  // 20 + the null block
  config.tiers.push_back(dram_tier(100, 10, kMs / 2));
  TierConfig ssd = dram_tier(400, 2, kMs);
  ssd.name = "ssd";
  config.tiers.push_back(ssd);
  config.tier_chunk_tokens = kChunkTokens;
  config.tier_write_policy = TierWritePolicy::kWriteThrough;
  auto run =
      run_cluster(config,
                  {grouped(0, 0, 176, 2, 0, 160), testing::request(1, 3 * kMs, 300, 2),
                   grouped(2, 6 * kMs, 176, 2, 0, 160), grouped(3, 12 * kMs, 300, 2, 0, 160)},
                  kMs);
  ASSERT_EQ(run->recorder.finished.size(), 4u);
  // Expected chunks written per request: full prompt chunks from the one holding its hit's end.
  std::map<uint64_t, uint64_t> expected_chunks = {{0, 2}, {1, 4}, {3, 2}};
  for (size_t t = 0; t < 2; ++t) {
    SCOPED_TRACE(t);
    std::map<uint64_t, uint64_t> written_bytes;
    int64_t last_end = 0;
    for (const TransferRecord& w : transfers_of(*run, TransferKind::kTierWrite)) {
      if (w.tier != static_cast<int32_t>(t)) continue;
      written_bytes[w.request_id] += w.bytes;
      EXPECT_GE(w.start_ns, last_end);  // one write path per tier, first come first served
      last_end = w.end_ns;
    }
    ASSERT_EQ(written_bytes.size(), expected_chunks.size());
    for (const auto& [id, chunks] : expected_chunks) {
      EXPECT_EQ(written_bytes[id], chunks * kChunkBytes) << "request " << id;
    }
    const TierStats s = run->cluster->tiers()[t].pool->stats();
    EXPECT_EQ(s.stored, 8u);  // what the writes stored: HBM's evictions moved nothing
    EXPECT_EQ(s.evicted, 0u);
  }
  EXPECT_GT(run->cluster->replica(0).cache().pool().num_evictions(), 0u);
  // A's prefill ends at 1 ms: its DRAM write starts then, its SSD write when that ends.
  const std::vector<TransferRecord> writes = transfers_of(*run, TransferKind::kTierWrite);
  ASSERT_GE(writes.size(), 2u);
  EXPECT_EQ(writes[0].tier, 0);
  EXPECT_EQ(writes[0].start_ns, kMs);
  EXPECT_EQ(writes[0].end_ns - writes[0].start_ns, kMs / 2 + 8 * kMs / 10);
  EXPECT_EQ(writes[1].tier, 1);
  EXPECT_EQ(writes[1].ready_ns, writes[0].end_ns);
  EXPECT_EQ(writes[1].end_ns - writes[1].start_ns, kMs + 4 * kMs);
  const RequestRecord* c = run->recorder.find(2);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->cached_prompt_tokens, 128u);
  // The summary: bytes written down per tier, and the TTFT the loads added (C's load only).
  const ClusterSummary summary = summarize_cluster(*run->cluster);
  EXPECT_TRUE(summary.tier_write_through);
  for (const TierSummary& tier : summary.tiers) {
    EXPECT_EQ(tier.chunk_tokens, kChunkTokens);
    EXPECT_EQ(tier.written_bytes, 8 * kChunkBytes) << tier.name;
    EXPECT_EQ(tier.writes, 3u) << tier.name;  // A, B and D
  }
  EXPECT_EQ(summary.tiers[0].hit_chunks, 2u);
  EXPECT_EQ(summary.tiers[0].load_bytes, 2 * kChunkBytes);
  EXPECT_EQ(summary.tier_load_wait_s.count, 1u);
  EXPECT_DOUBLE_EQ(summary.tier_load_wait_s.mean, 1.3e-3);  // 0.5 ms + 8 MiB at 10 MiB/ms
  const RequestRecord* d = run->recorder.find(3);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->cached_prompt_tokens, 160u);
  EXPECT_EQ(d->lower_hit_tokens[0], 0u);
}

// Every hash a tier holds is the last block of a whole chunk of some request's prompt; every
// load moves whole chunks; every hit below HBM ends at a chunk end, and of its per-tier
// shares at most one (the tier with the first chunk, partly in HBM) is not whole chunks.
void expect_whole_chunks(const testing::ClusterRun& run, const std::vector<RequestSpec>& requests) {
  std::vector<BlockHash> hashes;
  for (const RequestSpec& spec : requests) {
    prompt_block_hashes(spec, 16, &hashes);
    for (size_t i = 0; i < hashes.size(); ++i) {
      if ((i + 1) % 4 == 0) continue;
      for (const TierInstance& tier : run.cluster->tiers()) {
        ASSERT_FALSE(tier.pool->contains(hashes[i])) << "block " << i << " of " << spec.id;
      }
    }
  }
  for (const TransferRecord& t : transfers_of(run, TransferKind::kTierLoad)) {
    EXPECT_EQ(t.bytes % kChunkBytes, 0u);
  }
  for (const RequestRecord& r : run.recorder.finished) {
    uint32_t lower = 0, partial = 0;
    for (uint32_t tokens : r.lower_hit_tokens) {
      lower += tokens;
      partial += tokens % kChunkTokens != 0 ? 1 : 0;
    }
    if (lower == 0) continue;
    EXPECT_EQ(r.cached_prompt_tokens % kChunkTokens, 0u) << r.id;
    EXPECT_LE(partial, 1u) << r.id;
  }
}

TEST(TierChunks, AChunkIsNeverSplitAcrossTiersWithEveryPolicy) {
  for (const TierWritePolicy write : {TierWritePolicy::kOnEvict, TierWritePolicy::kWriteThrough}) {
    for (const EvictionKind policy :
         {EvictionKind::kLru, EvictionKind::kLfu, EvictionKind::kFifo}) {
      SCOPED_TRACE(std::string(eviction_name(policy)) + " " +
                   std::string(tier_write_policy_name(write)));
      ClusterConfig config = testing::pressured_tiers(policy, 160);
      config.tier_chunk_tokens = kChunkTokens;
      config.tier_write_policy = write;
      const std::vector<RequestSpec> requests = testing::pressure_workload();
      auto run = run_cluster(config, requests, kMs / 4, 1000);
      EXPECT_EQ(run->recorder.finished.size(), 400u);
      const ClusterSummary summary = summarize_cluster(*run->cluster);
      ASSERT_EQ(summary.tiers.size(), 2u);
      for (const TierSummary& tier : summary.tiers) {
        EXPECT_GT(tier.evicted_blocks, 0u) << tier.name << " never filled up";
        EXPECT_GT(tier.hit_blocks, 0u) << tier.name << " never served a hit";
        EXPECT_EQ(tier.hit_blocks % 4, 0u);
      }
      EXPECT_EQ(summary.tiers[0].slots, 80u);   // 10 chunks of 4 blocks per replica
      EXPECT_EQ(summary.tiers[1].slots, 160u);  // 40 chunks, one shared pool
      expect_whole_chunks(*run, requests);
    }
  }
}

TEST(TierChunks, TheChunkMustBeAMultipleOfEveryReplicasBlock) {
  ClusterConfig config = small_cluster({EngineRole::kColocated}, 20);
  config.tiers.push_back(dram_tier(100, 10, 0));
  config.tier_chunk_tokens = 40;
  std::vector<std::unique_ptr<CostModel>> costs;
  costs.push_back(std::make_unique<testing::FixedCostModel>(kMs));
  const auto cluster =
      Cluster::create(config, std::move(costs),
                      std::make_unique<testing::VectorSource>(std::vector<RequestSpec>{}));
  ASSERT_FALSE(cluster.is_ok());
  EXPECT_NE(cluster.status().message().find("not a multiple of replica r0's block size (16"),
            std::string::npos)
      << cluster.status().message();
}

// The Mooncake trace one request at a time (max_num_seqs 1: a request's prefill has ended
// before the next is admitted), HBM caching nothing (so every hit is the tiers'), chunks of
// 4 blocks of 512 tokens written through into a DRAM tier that never evicts: a request hits
// exactly the longest run of whole chunks that earlier requests computed in full — the
// chunk-level scan of hash_ids.
TEST(TierChunks, InfiniteTierGivesTheChunkLevelHitRateOfTheMooncakeTrace) {
  KVSIM_REQUIRE_DATA("traces/conversation_trace.jsonl");
  constexpr uint64_t kRequests = 2500;
  const double expected = testing::scan_hit_rate(
      ::kvsim::testing::data_dir() / "traces" / "conversation_trace.jsonl", 4, kRequests);
  const double blocks = testing::scan_hit_rate(
      ::kvsim::testing::data_dir() / "traces" / "conversation_trace.jsonl", 1, kRequests);
  ASSERT_LT(expected, blocks - 0.01) << "chunks should lose the partial chunks' hits";
  auto scenario =
      load_scenario("mooncake-conversation",
                    {"cache.block_size=512", "scheduler.chunked_prefill=false",
                     "scheduler.max_num_batched_tokens=131072", "scheduler.max_num_seqs=1",
                     "workload.max_requests=" + std::to_string(kRequests),
                     "tiers.dram.capacity_gib=8750", "tiers.dram.bandwidth_gbps=25",
                     "tiers.chunk_tokens=2048", "tiers.write_policy=write_through"});
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  auto setup = prepare_simulation(*scenario);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  auto cluster = std::make_shared<ClusterSetup>(*setup->cluster);
  cluster->replicas[0].engine.cache.eviction = EvictionKind::kNone;  // HBM caches nothing
  setup->cluster = cluster;
  const auto summary = run_simulation(*setup, {});
  ASSERT_TRUE(summary.is_ok()) << summary.status().message();
  EXPECT_EQ(summary->requests_completed, kRequests);
  const ClusterSummary* tiers = cluster_summary_of(*summary);
  ASSERT_NE(tiers, nullptr);
  ASSERT_EQ(tiers->tiers.size(), 1u);
  EXPECT_EQ(tiers->tiers[0].evicted_blocks, 0u);
  EXPECT_EQ(tiers->hbm_hit_rate, 0.0);
  EXPECT_DOUBLE_EQ(summary->prefix_cache_hit_rate, expected);
}

// on_evict with chunks and a DRAM tier that never evicts, HBM as configured: HBM adds the
// blocks of partial chunks it still holds, so the hit rate lies between the chunk-level and
// the block-level scan.
TEST(TierChunks, OnEvictChunksHitBetweenTheChunkAndTheBlockLevelScans) {
  KVSIM_REQUIRE_DATA("traces/conversation_trace.jsonl");
  const auto trace = ::kvsim::testing::data_dir() / "traces" / "conversation_trace.jsonl";
  const double chunks = testing::scan_hit_rate(trace, 4);
  const double blocks = testing::scan_hit_rate(trace, 1);
  auto scenario = load_scenario(
      "mooncake-conversation",
      {"cache.block_size=512", "cache.num_blocks_override=2000", "scheduler.chunked_prefill=false",
       "scheduler.max_num_batched_tokens=131072", "tiers.dram.capacity_gib=8750",
       "tiers.dram.bandwidth_gbps=25", "tiers.chunk_tokens=2048"});
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  auto setup = prepare_simulation(*scenario);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  const auto summary = run_simulation(*setup, {});
  ASSERT_TRUE(summary.is_ok()) << summary.status().message();
  EXPECT_EQ(summary->requests_completed, 12031u);
  const ClusterSummary* tiers = cluster_summary_of(*summary);
  ASSERT_NE(tiers, nullptr);
  EXPECT_EQ(tiers->tiers[0].evicted_blocks, 0u);
  EXPECT_GE(summary->prefix_cache_hit_rate, chunks);
  EXPECT_LE(summary->prefix_cache_hit_rate, blocks);
  EXPECT_GT(tiers->tiers[0].prefix_cache_hit_rate, 0.1);
}

}  // namespace
}  // namespace kvsim::sim
