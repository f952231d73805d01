// Routers on hand-built traces: which replica each request lands on (RequestRecord::replica),
// for round_robin, least_loaded (outstanding tokens) and prefix_aware (cached prefix blocks,
// load as the tie-break); the table of names; a one-replica cluster is a lone engine.
#include "simulator/cluster/router.h"

#include <gtest/gtest.h>

#include "simulator/engine/engine.h"
#include "tests/simulator/cluster/cluster_test_util.h"

namespace kvsim::sim {
namespace {

using testing::run_cluster;
using testing::small_cluster;

constexpr int64_t kMs = 1'000'000;

std::vector<int32_t> replicas_by_id(const testing::ClusterRun& run, size_t n) {
  std::vector<int32_t> out(n, -1);
  for (const RequestRecord& r : run.recorder.finished) out[r.id] = r.replica;
  return out;
}

RequestSpec grouped(uint64_t id, int64_t arrival_ns, uint32_t prompt, uint64_t group) {
  RequestSpec r = testing::request(id, arrival_ns, prompt, 2);
  r.prefix_group = group;
  r.prefix_tokens = 128;
  return r;
}

ClusterConfig three_replicas(RouterKind router) {
  ClusterConfig config =
      small_cluster({EngineRole::kColocated, EngineRole::kColocated, EngineRole::kColocated}, 500);
  config.router = router;
  return config;
}

TEST(Router, RoundRobinTakesTheReplicasInTurn) {
  std::vector<RequestSpec> requests;
  for (uint64_t i = 0; i < 7; ++i) requests.push_back(testing::request(i, 0, 100 + 50 * i, 2));
  auto run = run_cluster(three_replicas(RouterKind::kRoundRobin), requests, kMs);
  EXPECT_EQ(replicas_by_id(*run, 7), (std::vector<int32_t>{0, 1, 2, 0, 1, 2, 0}));
}

// All arrive at once, so nothing progresses between routings: outstanding tokens are the
// prompt + output tokens routed so far (r0: 1002, then r1 102, r2 52, ...).
TEST(Router, LeastLoadedPicksTheFewestOutstandingTokens) {
  const std::vector<uint32_t> prompts = {1000, 100, 50, 20, 20, 30, 200};
  std::vector<RequestSpec> requests;
  for (uint64_t i = 0; i < prompts.size(); ++i) {
    requests.push_back(testing::request(i, 0, prompts[i], 2));
  }
  auto run = run_cluster(three_replicas(RouterKind::kLeastLoaded), requests, kMs);
  // The chosen replica's load after each: r0 1002, r1 102, r2 52, r2 74, r2 96, r2 128
  // (96 < 102), r1 304 (102 < 128).
  EXPECT_EQ(replicas_by_id(*run, prompts.size()), (std::vector<int32_t>{0, 1, 2, 2, 2, 2, 1}));
}

TEST(Router, LeastLoadedCountsProgress) {
  // r0 gets a long prompt at t = 0; by t = 5 ms it has computed it (one 1 ms iteration) and
  // decoded its 2 outputs, so it is idle again and ties with r1 and r2: r0 wins the tie.
  std::vector<RequestSpec> requests = {testing::request(0, 0, 1000, 2),
                                       testing::request(1, 0, 10, 2),
                                       testing::request(2, 5 * kMs, 10, 2)};
  auto run = run_cluster(three_replicas(RouterKind::kLeastLoaded), requests, kMs);
  EXPECT_EQ(replicas_by_id(*run, 3), (std::vector<int32_t>{0, 1, 0}));
  for (size_t r = 0; r < 3; ++r) EXPECT_EQ(run->cluster->replica(r).outstanding_tokens(), 0u);
}

// Requests 0..2 (groups A, B, C) arrive together, before anything is cached: they spread by
// load. Later a B request goes where B's 8 shared blocks are cached (r1); a new group D,
// cached nowhere, to the least loaded (r0); another B to r1 although r1 is now the busiest;
// and a D request, while r0 still computes the first D prompt (whose blocks are registered
// when allocated), to r0, the busiest of all: more cached blocks beat load.
TEST(Router, PrefixAwarePrefersCachedPrefixesThenLoad) {
  std::vector<RequestSpec> requests = {
      grouped(0, 0, 200, 0),                   // A: all idle and empty -> r0
      grouped(1, 0, 300, 1),                   // B: r0 is loaded -> r1
      grouped(2, 0, 400, 2),                   // C -> r2
      grouped(3, 10 * kMs, 200, 1),            // B -> r1 (8 cached blocks)
      grouped(4, 10 * kMs, 1000, 3),           // D: 0 blocks anywhere; r1 has load -> r0
      grouped(5, 10 * kMs, 200, 1),            // B -> r1
      grouped(6, 10 * kMs + kMs / 2, 150, 3),  // D -> r0 (8 cached blocks, 1002 outstanding)
  };
  auto run = run_cluster(three_replicas(RouterKind::kPrefixAware), requests, kMs);
  EXPECT_EQ(replicas_by_id(*run, requests.size()), (std::vector<int32_t>{0, 1, 2, 1, 0, 1, 0}));
}

// The one table: every name parses into its kind, prints back, and builds the router that
// reports it; an unknown name lists the valid ones and the nearest.
TEST(Router, EveryNameParsesPrintsBackAndBuildsItsRouter) {
  EXPECT_EQ(router_names(),
            (std::vector<std::string>{"round_robin", "least_loaded", "prefix_aware"}));
  const RouterKind kinds[] = {RouterKind::kRoundRobin, RouterKind::kLeastLoaded,
                              RouterKind::kPrefixAware};
  for (size_t i = 0; i < std::size(kinds); ++i) {
    const std::string name = router_names()[i];
    const auto kind = parse_router(name);
    ASSERT_TRUE(kind.is_ok()) << name;
    EXPECT_EQ(*kind, kinds[i]);
    EXPECT_EQ(router_name(*kind), name);
    EXPECT_EQ(make_router(*kind)->kind(), *kind);
    EXPECT_EQ(make_router(*kind)->name(), name);
  }
  const auto unknown = parse_router("least-loaded");
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_NE(unknown.status().message().find("did you mean 'least_loaded'"), std::string::npos)
      << unknown.status().message();
  EXPECT_NE(unknown.status().message().find("round_robin, least_loaded, prefix_aware"),
            std::string::npos);
}

// A colocated cluster of one replica makes exactly the decisions of a lone engine.
TEST(Router, OneReplicaClusterIsALoneEngine) {
  std::vector<RequestSpec> requests;
  for (uint64_t i = 0; i < 200; ++i) {
    RequestSpec r = grouped(i, static_cast<int64_t>(i) * kMs / 4, 100 + (i * 53) % 300,
                            static_cast<int64_t>(i % 3));
    r.output_tokens = 1 + (i * 7) % 40;
    requests.push_back(r);
  }
  EngineConfig config = testing::small_config(60);
  config.scheduler.preemption = PreemptionMode::kSwap;
  config.cache.num_host_blocks = 40;
  auto engine = Engine::create(config, std::make_unique<testing::FixedCostModel>(kMs / 2, 1000),
                               std::make_unique<testing::VectorSource>(requests));
  ASSERT_TRUE(engine.is_ok());
  testing::ClusterRecorder alone;
  (*engine)->add_observer(&alone);
  ASSERT_TRUE((*engine)->run().is_ok());

  ClusterConfig cluster = small_cluster({EngineRole::kColocated}, 60);
  cluster.replicas[0].engine = config;
  auto run = run_cluster(cluster, requests, kMs / 2, 1000);
  ASSERT_EQ(run->recorder.finished.size(), alone.finished.size());
  EXPECT_GT((*engine)->stats().preemptions_swap, 0u);
  for (size_t i = 0; i < alone.finished.size(); ++i) {
    const RequestRecord& a = alone.finished[i];
    const RequestRecord& b = run->recorder.finished[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.first_scheduled_ns, b.first_scheduled_ns);
    EXPECT_EQ(a.first_token_ns, b.first_token_ns);
    EXPECT_EQ(a.finish_ns, b.finish_ns);
    EXPECT_EQ(a.cached_prompt_tokens, b.cached_prompt_tokens);
    EXPECT_EQ(a.preemptions, b.preemptions);
  }
  EXPECT_EQ((*engine)->stats().events, run->cluster->stats().events);
  EXPECT_EQ((*engine)->stats().iterations, run->cluster->replica(0).stats().iterations);
}

}  // namespace
}  // namespace kvsim::sim
