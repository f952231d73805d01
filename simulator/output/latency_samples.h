// LatencySummary and LatencySamples: one latency series of a run (TTFT, TPOT, E2E, queueing),
// summarised at the end as its mean and p50/p90/p99, in memory that stays bounded however many
// requests a run has.
//
// Up to `exact_limit` values (default 2^20: 8 MiB a series) every value is kept and the summary
// is exact: the percentiles interpolate between order statistics, the mean sums the sorted
// values. The value after that folds them all into a log-bucketed histogram (DDSketch, Masson
// et al., VLDB 2019): bucket i holds the values in (gamma^(i-1), gamma^i], gamma = (1 + a) /
// (1 - a), and a quantile is its bucket's midpoint 2 gamma^i / (gamma + 1), within a relative
// error a = 0.1% of the exact order statistic (values <= 1 ns are kept as a count of zeros). The
// mean is then the running sum's, in the order the values came. A week of a fleet's traffic
// (27 M requests) so summarises in ~100 KiB a series instead of 216 MiB.
#pragma once

#include <cstdint>
#include <vector>

namespace kvsim::sim {

struct LatencySummary {
  uint64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
};

// Sorts *values and summarizes them (zeros when empty): the exact summary.
LatencySummary summarize_latencies(std::vector<double>* values);
// The p-quantile (0..1) of sorted values, linear interpolation. Precondition: not empty.
double quantile_sorted(const std::vector<double>& sorted, double p);

class LatencySamples {
 public:
  static constexpr uint64_t kDefaultExactLimit = uint64_t{1} << 20;
  static constexpr double kRelativeAccuracy = 1e-3;

  explicit LatencySamples(uint64_t exact_limit = kDefaultExactLimit) : exact_limit_(exact_limit) {}

  void add(double seconds);
  uint64_t count() const { return count_; }
  // Whether the summary is exact: the values are folded into the histogram from the first one
  // past the limit on.
  bool exact() const { return count_ <= exact_limit_; }
  // The summary; sorts the kept values (call once, after the run).
  LatencySummary summary();

 private:
  void fold(double seconds);
  double quantile(double p) const;

  uint64_t exact_limit_;
  uint64_t count_ = 0;
  std::vector<double> values_;  // while exact
  // The histogram: buckets_[i - min_index_] counts bucket i; zeros_ the values <= kMinValue.
  std::vector<uint64_t> buckets_;
  int64_t min_index_ = 0;
  uint64_t zeros_ = 0;
  long double sum_ = 0;  // of every value, once folding began
};

}  // namespace kvsim::sim
