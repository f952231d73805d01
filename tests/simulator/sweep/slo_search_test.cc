#include "simulator/sweep/slo_search.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config/yaml_io.h"

namespace kvsim::sim {
namespace {

using ::testing::HasSubstr;

SloSpec slo_from_text(const std::string& yaml) {
  auto node = parse_yaml(yaml, "slo.yaml");
  EXPECT_TRUE(node.is_ok());
  auto slo = slo_from_config(*node);
  EXPECT_TRUE(slo.is_ok()) << slo.status().message();
  return slo.is_ok() ? *slo : SloSpec{};
}

// A queue whose p99 latency is 0.1 / (1 - load / 10): the SLO 0.5 holds up to load 8 exactly.
StatusOr<FlatMetrics> queue_latency(double load) {
  if (load >= 10) return FlatMetrics{{"ttft_s.p99", 1e9}};
  return FlatMetrics{{"ttft_s.p99", 0.1 / (1 - load / 10)}};
}

TEST(SloSearchTest, FindsTheLoadThatMeetsWhileTenPercentMoreDoesNot) {
  const SloSpec slo = slo_from_text("ttft_p99_s: 0.5\nprecision: 1.01\n");
  ASSERT_EQ(slo.limits.size(), 1u);
  EXPECT_EQ(slo.limits[0].metric, "ttft_s.p99");
  auto result = search_max_load(queue_latency, slo);
  ASSERT_TRUE(result.is_ok());
  ASSERT_TRUE(result->found);
  std::string why;
  EXPECT_TRUE(meets_slo(*queue_latency(result->load_factor), slo, &why));
  EXPECT_FALSE(meets_slo(*queue_latency(result->load_factor * 1.1), slo, &why));
  EXPECT_NEAR(result->load_factor, 8.0, 8.0 * 0.01);
  EXPECT_LE(result->failing_factor / result->load_factor, 1.01);
}

TEST(SloSearchTest, HalvesWhenEvenTheGivenLoadFails) {
  const SloSpec slo = slo_from_text("ttft_p99_s: 0.5\n");
  auto result = search_max_load([](double load) { return queue_latency(load * 40); }, slo);
  ASSERT_TRUE(result.is_ok());
  ASSERT_TRUE(result->found);
  EXPECT_NEAR(result->load_factor, 0.2, 0.2 * 0.02);
}

TEST(SloSearchTest, ReportsWhenNothingMeetsTheSlo) {
  const SloSpec slo = slo_from_text("ttft_p99_s: 0.05\n");  // below the idle latency 0.1
  auto result = search_max_load(queue_latency, slo);
  ASSERT_TRUE(result.is_ok());
  EXPECT_FALSE(result->found);
}

TEST(SloSearchTest, NamesWhatBindsAtTheLowestFailingLoad) {
  const SloSpec slo = slo_from_text("ttft_p99_s: 0.5\nprecision: 1.01\n");
  auto latency = search_max_load(queue_latency, slo);
  ASSERT_TRUE(latency.is_ok());
  EXPECT_THAT(latency->binding, ::testing::StartsWith("ttft_s.p99 = "));
  EXPECT_THAT(latency->binding, ::testing::EndsWith(" > 0.5"));
  // The same queue, its pool preempting from load 6 on.
  auto kv = search_max_load(
      [](double load) -> StatusOr<FlatMetrics> {
        FlatMetrics m = *queue_latency(load);
        m["preemptions"] = load >= 6 ? 12 : 0;
        m["kv_usage_peak"] = load >= 6 ? 1.0 : 0.5;
        return m;
      },
      slo);
  ASSERT_TRUE(kv.is_ok());
  EXPECT_THAT(kv->binding, ::testing::StartsWith("KV memory (ttft_s.p99 = "));
  EXPECT_THAT(kv->binding, HasSubstr("; KV peak 100.0%, 12 preemptions)"));
  // Requests dropped beyond load 4 (none below): drops bind, whatever the latency.
  auto drops = search_max_load(
      [](double load) -> StatusOr<FlatMetrics> {
        FlatMetrics m = *queue_latency(load);
        m["requests_dropped"] = load > 4 ? 30 : 0;
        if (load > 4) m["ttft_s.p99"] = 1e9;
        return m;
      },
      slo);
  ASSERT_TRUE(drops.is_ok());
  EXPECT_EQ(drops->binding, "drops (30 requests dropped)");
  auto unbounded = search_max_load(
      [](double) -> StatusOr<FlatMetrics> {
        return FlatMetrics{{"ttft_s.p99", 0.1}};
      },
      slo);
  ASSERT_TRUE(unbounded.is_ok());
  EXPECT_THAT(unbounded->binding, ::testing::StartsWith("none"));
}

TEST(SloSearchTest, SpecErrors) {
  auto node = parse_yaml("start_rate_per_s: 2\n", "slo.yaml");
  auto none = slo_from_config(*node);
  ASSERT_FALSE(none.is_ok());
  EXPECT_THAT(none.status().message(), HasSubstr("at least one limit"));
  node = parse_yaml("ttft_p99_s: 1\nttft_p99: 2\n", "slo.yaml");
  EXPECT_THAT(slo_from_config(*node).status().message(), HasSubstr("unknown field"));
  EXPECT_DOUBLE_EQ(slo_from_text("tpot_p90_s: 0.1\nstart_rate_per_s: 3\n").start_rate_per_s, 3.0);
}

}  // namespace
}  // namespace kvsim::sim
