// Parallel cluster runs (simulator/cluster/cluster.h, "Parallel runs"): every output file of a
// run on several threads is the serial run's, byte for byte — where the cluster runs in
// parallel (round_robin colocated clusters: many windows of arrivals, arrivals all at once,
// swaps, drops at arrival) and where it falls back to one thread (routers that read the
// replicas, lower tiers, disaggregation, a client's concurrency limit).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "simulator/cluster/cluster.h"
#include "simulator/simulation.h"
#include "tests/simulator/cluster/cluster_test_util.h"

namespace kvsim::sim {
namespace {

namespace fs = std::filesystem;

const char* kBase =
    "model: llama3-8b\n"
    "device: a100-80g\n"
    "seed: 11\n"
    "cache: {block_size: 16}\n"
    "output: {timeseries_interval_s: 0.5}\n"
    "workload:\n"
    "  synthetic: {num_requests: 1500, rate: 60, output_tokens: 60,\n"
    "              prompt_tokens: {dist: uniform, min: 16, max: 1100},\n"
    "              shared_prefix: {groups: 4, tokens: 256, probability: 0.7}}\n";

// Writes the run's files (and a Chrome trace) into `dir` on `threads` threads.
void run_into(const std::string& extra, const std::vector<std::string>& overrides,
              const fs::path& dir, uint32_t threads) {
  const fs::path yaml = fs::path(::testing::TempDir()) / "parallel_cluster.yaml";
  std::ofstream(yaml) << kBase << extra;
  auto scenario = load_scenario(yaml.string(), overrides);
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  auto setup = prepare_simulation(*scenario);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  RunOptions options;
  options.out_dir = dir.string();
  options.chrome_trace = (dir / "trace.json").string();
  options.threads = threads;
  auto summary = run_simulation(*setup, options);
  ASSERT_TRUE(summary.is_ok()) << summary.status().message();
}

struct Case {
  const char* name;
  const char* yaml;
  std::vector<std::string> overrides;
};

class ParallelCluster : public ::testing::TestWithParam<Case> {};

TEST_P(ParallelCluster, EveryFileIsTheSerialRunsByteForByte) {
  const Case& c = GetParam();
  const fs::path root = fs::path(::testing::TempDir()) / "parallel-cluster" / c.name;
  fs::remove_all(root);
  run_into(c.yaml, c.overrides, root / "serial", 1);
  run_into(c.yaml, c.overrides, root / "parallel", 3);
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(root / "serial")) {
    const std::string serial = testing::read_file(entry.path());
    EXPECT_EQ(serial, testing::read_file(root / "parallel" / entry.path().filename()))
        << entry.path().filename();
    files += serial.size() > 100 ? 1 : 0;
  }
  EXPECT_GE(files, 4u) << "summary, requests, replicas and the trace";
}

INSTANTIATE_TEST_SUITE_P(
    Runs, ParallelCluster,
    ::testing::Values(
        // In parallel: three windows of arrivals over four replicas.
        Case{"round_robin", "cluster: {replicas: 4, router: round_robin}\n", {}},
        // Every arrival at t = 0 (ties everywhere), pools small enough to swap, prompts too
        // long for some (dropped at arrival).
        Case{"burst_swaps_drops",
             "cluster: {replicas: 3}\n",
             {"workload.synthetic.arrival=burst", "workload.synthetic.num_requests=400",
              "scheduler.preemption=swap", "cache.host_swap_gib=8", "cache.num_blocks_override=300",
              "scheduler.max_model_len=1024"}},
        Case{"sglang_engine", "engine: sglang\ncluster: {replicas: 2}\n", {}},
        // Time-series rows every 2 ms: several between two instants of a replica, some on
        // the instants themselves (each replica keeps its state only for the rows).
        Case{"fine_rows", "cluster: {replicas: 4}\n", {"output.timeseries_interval_s=0.002"}},
        // One thread, as serial: these read or share state across replicas.
        Case{"least_loaded", "cluster: {replicas: 3, router: least_loaded}\n", {}},
        Case{"prefix_aware_tiers",
             "cluster: {replicas: 2, router: prefix_aware}\n"
             "tiers: {dram: {capacity_gib: 2, bandwidth_gbps: 32}}\n",
             {"cache.num_blocks_override=3000"}},
        Case{"disaggregated", "disaggregation: {prefill: 2, decode: 1}\n", {}},
        Case{"max_concurrency", "cluster: {replicas: 2}\n", {"workload.max_concurrency=16"}}),
    [](const ::testing::TestParamInfo<Case>& param) { return std::string(param.param.name); });

// Iterations of one fixed length and arrivals on the same millisecond grid: events of several
// replicas, and arrivals, fall on the same nanosecond all the time, so the order the serial run
// gives them (the shared queue's insertion order) shows in the order of every observer call.
TEST(ParallelClusterTies, SameInstantEventsKeepTheSerialOrder) {
  using testing::small_cluster;
  const auto run = [](uint32_t threads) {
    ClusterConfig config = small_cluster(std::vector<EngineRole>(3, EngineRole::kColocated), 40);
    config.threads = threads;
    std::vector<RequestSpec> requests;
    for (uint64_t i = 0; i < 1500; ++i) {  // three windows; bursts of 5 every 2 ms
      requests.push_back(testing::request(i, static_cast<int64_t>(i / 5) * 2 * testing::kMs,
                                          16 + static_cast<uint32_t>(i * 37 % 200),
                                          1 + static_cast<uint32_t>(i * 11 % 9)));
    }
    auto out = testing::run_cluster(config, std::move(requests), testing::kMs, 0, false);
    EXPECT_EQ(out->cluster->parallel_threads(), threads);
    return out;
  };
  const auto serial = run(1);
  const auto parallel = run(3);
  ASSERT_EQ(serial->recorder.finished.size(), parallel->recorder.finished.size());
  EXPECT_GT(serial->recorder.finished.size(), 1000u);
  for (size_t i = 0; i < serial->recorder.finished.size(); ++i) {
    const RequestRecord& a = serial->recorder.finished[i];
    const RequestRecord& b = parallel->recorder.finished[i];
    ASSERT_EQ(a.id, b.id) << "call " << i;
    EXPECT_EQ(a.replica, b.replica);
    EXPECT_EQ(a.finish_ns, b.finish_ns);
    EXPECT_EQ(a.first_token_ns, b.first_token_ns);
    EXPECT_EQ(a.preemptions, b.preemptions);
  }
  EXPECT_EQ(serial->recorder.dropped, parallel->recorder.dropped);
  EXPECT_EQ(serial->recorder.instants, parallel->recorder.instants);
  EXPECT_EQ(serial->cluster->stats().events, parallel->cluster->stats().events);
  EXPECT_TRUE(serial->cluster->stats().in_system_ns == parallel->cluster->stats().in_system_ns);
}

// Which clusters run in parallel: colocated, round_robin, no lower tiers; never more threads
// than replicas, none when one is asked for.
TEST(ParallelClusterThreads, OnlyClustersWhoseReplicasRunApartGetThreads) {
  using testing::small_cluster;
  const auto threads = [](ClusterConfig config, uint32_t asked = 8) {
    config.threads = asked;
    std::vector<std::unique_ptr<CostModel>> costs;
    for (size_t r = 0; r < config.replicas.size(); ++r) {
      costs.push_back(std::make_unique<testing::FixedCostModel>(1000, 10));
    }
    auto cluster =
        Cluster::create(config, std::move(costs),
                        std::make_unique<testing::VectorSource>(std::vector<RequestSpec>{}));
    EXPECT_TRUE(cluster.is_ok()) << cluster.status().message();
    return cluster.is_ok() ? (*cluster)->parallel_threads() : 0u;
  };
  const std::vector<EngineRole> three(3, EngineRole::kColocated);
  EXPECT_EQ(threads(small_cluster(three, 100)), 3u);
  EXPECT_EQ(threads(small_cluster(three, 100), 1), 1u);
  EXPECT_EQ(threads(small_cluster(std::vector<EngineRole>(12, EngineRole::kColocated), 100)), 8u);
  ClusterConfig least = small_cluster(three, 100);
  least.router = RouterKind::kLeastLoaded;
  EXPECT_EQ(threads(least), 1u);
  ClusterConfig tiered = small_cluster(three, 100);
  tiered.tiers.push_back(TierConfig{"dram", false, EvictionKind::kLru, 1e9, 1e10, 0});
  EXPECT_EQ(threads(tiered), 1u);
  EXPECT_EQ(threads(small_cluster({EngineRole::kPrefill, EngineRole::kDecode}, 100)), 1u);
}

}  // namespace
}  // namespace kvsim::sim
