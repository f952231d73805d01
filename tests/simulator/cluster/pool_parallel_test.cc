// Replica groups with their own parallel layout (simulator/scenario/cluster_scenario.h): a
// prefill pool at EP 32 and a decode pool at EP 64 each sized and timed as `kvsim capacity` and
// `kvsim cost` give their layout, a replica being one DP rank (its KV on its attention TP x pp
// devices, what a transfer moves), and the group's parallel: errors at file:line:column with the
// scenario section's messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "simulator/cluster/cluster_summary.h"
#include "simulator/setup/cluster_setup.h"
#include "simulator/simulation.h"
#include "tests/simulator/cluster/cluster_test_util.h"

namespace kvsim::sim {
namespace {

namespace fs = std::filesystem;

// DeepSeek-V3 fp8 on H100s as the deepseek-v3-wide-ep presets run it (SGLang's memory rule).
const char* kWideEp =
    "model: deepseek-v3\n"
    "device: h100-sxm\n"
    "weight_dtype: fp8\n"
    "engine: sglang\n"
    "cache: {dtype: bf16, block_size: 64, mem_fraction: 0.85}\n"
    "workload:\n"
    "  synthetic: {num_requests: 6, arrival: burst, prompt_tokens: 1000, output_tokens: 4}\n"
    "cost_model: {kind: operators}\n";

StatusOr<Scenario> scenario_from(const std::string& name, const std::string& text) {
  const fs::path path = fs::path(::testing::TempDir()) / (name + ".yaml");
  std::ofstream(path) << text;
  return load_scenario(path.string(), {});
}

// One block of one DP rank: MLA's latent (512 + 64 rope dims) of 61 layers, bf16, 64 tokens,
// whole on its one device (attention TP 1).
constexpr uint64_t kBlockBytes = 61ull * (512 + 64) * 2 * 64;  // 4,497,408

const char* kPools =
    "cluster:\n"
    "  replicas:\n"
    "    - {count: 1, parallel: {tp: 32, dp: 32, ep: 32}}\n"
    "    - {count: 2, parallel: {tp: 64, dp: 64, ep: 64}}\n"
    "disaggregation: {prefill: 1, decode: 2, link: rdma-1x400g}\n";

// `kvsim capacity --model deepseek-v3 --device h100-sxm --weight-dtype fp8 --kv-dtype bf16
// --block-size 64 --engine sglang --mem-fraction 0.85 --tp T --dp T --ep T`: weights per rank
// 37,560,986,800 B at EP 32 (8 experts a GPU), 27,341,167,792 B at EP 64 (4), so budgets of
// 33,600,715,715 and 43,820,534,723 B over 4,497,408-byte blocks: 7,471 and 9,743 blocks.
TEST(PoolParallel, EachPoolIsSizedForItsOwnLayout) {
  auto s = scenario_from("pools", std::string(kWideEp) + kPools);
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  ASSERT_TRUE(s->cluster.replicas[0].parallel.has_value());
  EXPECT_EQ(s->cluster.replicas[0].num_devices, 32u);  // tp is the group's num_devices
  EXPECT_EQ(s->cluster.replicas[1].parallel->ep, 64u);
  auto setup = prepare_simulation(*s);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  const std::vector<ReplicaSetup>& replicas = setup->cluster->replicas;
  ASSERT_EQ(replicas.size(), 3u);
  EXPECT_EQ(replicas[0].parallel.ep, 32u);
  EXPECT_EQ(replicas[0].capacity.weight_bytes.value_or(0), 37'560'986'800u);
  EXPECT_EQ(replicas[0].engine.cache.num_blocks, 7'471u);
  for (size_t r = 1; r < 3; ++r) {
    EXPECT_EQ(replicas[r].parallel.ep, 64u);
    EXPECT_EQ(replicas[r].capacity.weight_bytes.value_or(0), 27'341'167'792u);
    EXPECT_EQ(replicas[r].engine.cache.num_blocks, 9'743u);
  }
  const ClusterConfig config = cluster_config(*setup->cluster);
  for (const ReplicaConfig& replica : config.replicas) {
    EXPECT_EQ(replica.num_devices, 1u) << replica.name;  // one DP rank: attention TP 1
    EXPECT_EQ(replica.kv_bytes_per_block, kBlockBytes) << replica.name;
  }
}

// Each request's 1,000-token prompt is 16 blocks of one DP rank's latent on the decode side.
TEST(PoolParallel, TransfersMoveOneDpRanksKv) {
  auto s = scenario_from("pools-run", std::string(kWideEp) + kPools);
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  auto setup = prepare_simulation(*s);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  auto summary = run_simulation(*setup, {});
  ASSERT_TRUE(summary.is_ok()) << summary.status().message();
  EXPECT_EQ(summary->requests_completed, 6u);
  EXPECT_EQ(summary->info.num_devices, 3u);  // three DP ranks of one GPU each
  const ClusterSummary* cluster = cluster_summary_of(*summary);
  ASSERT_NE(cluster, nullptr);
  EXPECT_EQ(cluster->kv_transfers, 6u);
  EXPECT_EQ(cluster->kv_transfer_bytes, 6u * 16u * kBlockBytes);
}

// The scenario's own layout under disaggregation: a replica is one of the 64 DP ranks, not the
// whole group (kvsim used to send 64 copies of each block).
TEST(PoolParallel, ScenarioLayoutTransfersOneDpRanksKvToo) {
  auto s = scenario_from("scenario-layout",
                         std::string(kWideEp) +
                             "num_devices: 64\n"
                             "parallel: {dp: 64, ep: 64}\n"
                             "disaggregation: {prefill: 1, decode: 1, link: rdma-1x400g}\n");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  auto setup = prepare_simulation(*s);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  auto summary = run_simulation(*setup, {});
  ASSERT_TRUE(summary.is_ok()) << summary.status().message();
  const ClusterSummary* cluster = cluster_summary_of(*summary);
  ASSERT_NE(cluster, nullptr);
  EXPECT_EQ(cluster->kv_transfer_bytes, 6u * 16u * kBlockBytes);
}

// A one-replica cluster is timed as the lone engine of its layout: the replica's cost model
// runs the group's EP 64 all-to-alls, whether the layout is the group's or the scenario's.
TEST(PoolParallel, AReplicasCostModelTimesItsLayout) {
  auto lone = scenario_from(
      "lone", std::string(kWideEp) + "num_devices: 64\n" + "parallel: {dp: 64, ep: 64}\n");
  auto group = scenario_from("group", std::string(kWideEp) +
                                          "cluster:\n"
                                          "  replicas: [{count: 1, parallel: {tp: 64, dp: 64, "
                                          "ep: 64}}]\n");
  auto inherited =
      scenario_from("inherited", std::string(kWideEp) + "num_devices: 64\n" +
                                     "parallel: {dp: 64, ep: 64}\n" + "cluster: {replicas: 1}\n");
  ASSERT_TRUE(lone.is_ok() && group.is_ok() && inherited.is_ok());
  auto lone_run = run_simulation(*prepare_simulation(*lone), {});
  ASSERT_TRUE(lone_run.is_ok()) << lone_run.status().message();
  for (const Scenario* s : {&*group, &*inherited}) {
    auto setup = prepare_simulation(*s);
    ASSERT_TRUE(setup.is_ok()) << setup.status().message();
    auto run = run_simulation(*setup, {});
    ASSERT_TRUE(run.is_ok()) << run.status().message();
    EXPECT_EQ(run->ttft_s.mean, lone_run->ttft_s.mean) << s->name;
    EXPECT_EQ(run->tpot_s.mean, lone_run->tpot_s.mean) << s->name;
    EXPECT_EQ(run->info.num_blocks, lone_run->info.num_blocks) << s->name;
  }
}

// `kvsim simulate --explain` times a cluster's first replica on its own layout: the prefill
// pool's EP 32, as the lone engine at EP 32 times the same batch.
TEST(PoolParallel, ExplainTimesTheFirstReplicasLayout) {
  auto pools = scenario_from("explain-pools", std::string(kWideEp) + kPools);
  auto lone = scenario_from(
      "explain-lone", std::string(kWideEp) + "num_devices: 32\n" + "parallel: {dp: 32, ep: 32}\n");
  ASSERT_TRUE(pools.is_ok() && lone.is_ok());
  auto pools_setup = prepare_simulation(*pools);
  auto lone_setup = prepare_simulation(*lone);
  ASSERT_TRUE(pools_setup.is_ok() && lone_setup.is_ok());
  auto cluster = explain_batches(*pools_setup, {"prefill:4x4096"});
  auto engine = explain_batches(*lone_setup, {"prefill:4x4096"});
  ASSERT_TRUE(cluster.is_ok() && engine.is_ok());
  EXPECT_GT(engine->front().cost.total_s, 0);
  EXPECT_EQ(cluster->front().cost.total_s, engine->front().cost.total_s);
}

void expect_group_error(const std::string& name, const std::string& group,
                        const std::vector<std::string>& parts) {
  const std::string text = std::string(kWideEp) + "cluster:\n  replicas:\n    - " + group + "\n";
  testing::expect_scenario_error(scenario_from(name, text), name, parts);
}

// The scenario section's messages, named by the group; the model's checks at the group's field.
TEST(PoolParallel, GroupLayoutErrorsNameTheField) {
  expect_group_error("tp-disagrees", "{num_devices: 8, parallel: {tp: 16}}",
                     {"tp-disagrees.yaml:11:39:",
                      "cluster.replicas[0].parallel.tp 16 disagrees with num_devices 8"});
  expect_group_error("dp-divides", "{parallel: {tp: 8, dp: 3}}",
                     {"dp-divides.yaml:11:", "cluster.replicas[0].parallel.dp 3 must divide tp 8"});
  expect_group_error("ep-divides", "{parallel: {tp: 8, ep: 16}}",
                     {"cluster.replicas[0].parallel.ep 16 must divide tp 8"});
  expect_group_error("unknown-key", "{parallel: {tp: 8, cp: 2}}",
                     {"unknown-key.yaml:11:", "cp", "dp, ep, pp, tp"});
  expect_group_error("zero", "{parallel: {dp: 0}}", {"zero.yaml:11:", "dp"});
  // 256 experts: ep 3 does not divide them (ep | tp holds).
  expect_group_error("ep-experts", "{parallel: {tp: 6, ep: 3}}",
                     {"ep-experts.yaml:11:30:", "parallel.ep (--ep) 3"});
}

}  // namespace
}  // namespace kvsim::sim
