// LatencySamples (simulator/output/latency_samples.h): exact up to its limit, then a histogram
// whose quantiles stay within 0.1% of the exact ones in bounded memory.
#include "simulator/output/latency_samples.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace kvsim::sim {
namespace {

// Lognormal latencies around 0.2 s, some exact zeros (a TTFT of a request hit whole).
std::vector<double> latencies(size_t n) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> lognormal(std::log(0.2), 1.0);
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) out.push_back(i % 97 == 0 ? 0.0 : lognormal(rng));
  return out;
}

// The values through LatencySamples of `limit`; *exact whether it stayed exact.
LatencySummary through_samples(const std::vector<double>& values, uint64_t limit, bool* exact) {
  LatencySamples samples(limit);
  for (const double v : values) samples.add(v);
  *exact = samples.exact();
  return samples.summary();
}

TEST(LatencySamples, UpToItsLimitTheSummaryIsTheExactOne) {
  std::vector<double> values = latencies(5000);
  bool kept_exact = false;
  const LatencySummary got = through_samples(values, 5000, &kept_exact);
  EXPECT_TRUE(kept_exact);
  const LatencySummary exact = summarize_latencies(&values);
  EXPECT_EQ(got.count, exact.count);
  EXPECT_EQ(got.mean, exact.mean);
  EXPECT_EQ(got.p50, exact.p50);
  EXPECT_EQ(got.p90, exact.p90);
  EXPECT_EQ(got.p99, exact.p99);
}

TEST(LatencySamples, PastItsLimitQuantilesStayWithinTheRelativeAccuracy) {
  const std::vector<double> values = latencies(200000);
  bool kept_exact = true;
  const LatencySummary got = through_samples(values, 1000, &kept_exact);
  EXPECT_FALSE(kept_exact);
  std::vector<double> sorted = values;
  const LatencySummary exact = summarize_latencies(&sorted);
  EXPECT_EQ(got.count, 200000u);
  EXPECT_NEAR(got.mean, exact.mean, 1e-12 * exact.mean);
  // The sketch returns the order statistic of rank floor(p (n - 1)); the exact summary
  // interpolates towards the next one: compare with both neighbours' span.
  for (const double p : {0.5, 0.9, 0.99}) {
    const auto rank = static_cast<size_t>(std::floor(p * (sorted.size() - 1)));
    const double q = p == 0.5 ? got.p50 : p == 0.9 ? got.p90 : got.p99;
    EXPECT_NEAR(q, sorted[rank], LatencySamples::kRelativeAccuracy * sorted[rank]) << p;
  }
}

TEST(LatencySamples, AllZerosPastTheLimitSummariseAsZero) {
  LatencySamples samples(2);
  for (int i = 0; i < 10; ++i) samples.add(0.0);
  const LatencySummary s = samples.summary();
  EXPECT_EQ(s.count, 10u);
  EXPECT_EQ(s.mean, 0.0);
  EXPECT_EQ(s.p99, 0.0);
}

}  // namespace
}  // namespace kvsim::sim
