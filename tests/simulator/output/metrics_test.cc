#include "simulator/output/metrics.h"

#include <gtest/gtest.h>

namespace kvsim::sim {
namespace {

TEST(Metrics, QuantilesInterpolateBetweenOrderStatistics) {
  std::vector<double> values = {4, 1, 3, 2, 5};
  const LatencySummary s = summarize_latencies(&values);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_DOUBLE_EQ(s.p50, 3.0);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);  // h = 3.6: 4 + 0.6 x (5 - 4)
  EXPECT_DOUBLE_EQ(s.p99, 4.96);
  std::vector<double> none;
  EXPECT_EQ(summarize_latencies(&none).p99, 0.0);
}

TEST(Metrics, SummaryFlattensToDottedKeys) {
  Summary summary;
  summary.ttft_s.p99 = 1.5;
  summary.requests_completed = 7;
  const auto flat = flatten_json(summary_to_json(summary, /*with_wall=*/false));
  bool found_p99 = false, found_completed = false, found_wall = false;
  for (const auto& [key, value] : flat) {
    if (key == "ttft_s.p99") found_p99 = value.get<double>() == 1.5;
    if (key == "requests_completed") found_completed = value.get<uint64_t>() == 7;
    if (key == "wall_s") found_wall = true;
    EXPECT_FALSE(value.is_object()) << key;
  }
  EXPECT_TRUE(found_p99);
  EXPECT_TRUE(found_completed);
  EXPECT_FALSE(found_wall);
  EXPECT_TRUE(summary_to_json(summary, /*with_wall=*/true).contains("wall_s"));
}

}  // namespace
}  // namespace kvsim::sim
