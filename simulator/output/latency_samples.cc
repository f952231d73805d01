#include "simulator/output/latency_samples.h"

#include <algorithm>
#include <cmath>

namespace kvsim::sim {
namespace {

constexpr double kMinValue = 1e-9;  // one nanosecond: the clock's tick; at or below is a zero
const double kGamma =
    (1 + LatencySamples::kRelativeAccuracy) / (1 - LatencySamples::kRelativeAccuracy);
const double kLogGamma = std::log(kGamma);

int64_t bucket_of(double seconds) {
  return static_cast<int64_t>(std::ceil(std::log(seconds) / kLogGamma));
}

}  // namespace

double quantile_sorted(const std::vector<double>& sorted, double p) {
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

LatencySummary summarize_latencies(std::vector<double>* values) {
  LatencySummary s;
  s.count = values->size();
  if (values->empty()) return s;
  std::sort(values->begin(), values->end());
  long double sum = 0;
  for (double v : *values) sum += v;
  s.mean = static_cast<double>(sum / static_cast<long double>(values->size()));
  s.p50 = quantile_sorted(*values, 0.50);
  s.p90 = quantile_sorted(*values, 0.90);
  s.p99 = quantile_sorted(*values, 0.99);
  return s;
}

void LatencySamples::add(double seconds) {
  ++count_;
  if (exact()) {
    values_.push_back(seconds);
    return;
  }
  if (!values_.empty()) {  // the first value past the limit: fold what was kept
    for (const double v : values_) fold(v);
    std::vector<double>().swap(values_);
  }
  fold(seconds);
}

void LatencySamples::fold(double seconds) {
  sum_ += seconds;
  if (!(seconds > kMinValue)) {
    ++zeros_;
    return;
  }
  const int64_t i = bucket_of(seconds);
  if (buckets_.empty()) {
    min_index_ = i;
    buckets_.push_back(0);
  } else if (i < min_index_) {
    buckets_.insert(buckets_.begin(), static_cast<size_t>(min_index_ - i), 0);
    min_index_ = i;
  } else if (i - min_index_ >= static_cast<int64_t>(buckets_.size())) {
    buckets_.resize(static_cast<size_t>(i - min_index_ + 1), 0);
  }
  ++buckets_[static_cast<size_t>(i - min_index_)];
}

// The value of rank floor(p (n - 1)) (0-based), as its bucket's midpoint.
double LatencySamples::quantile(double p) const {
  const auto rank = static_cast<uint64_t>(std::floor(p * static_cast<double>(count_ - 1)));
  if (rank < zeros_) return 0;
  uint64_t seen = zeros_;
  for (size_t k = 0; k < buckets_.size(); ++k) {
    seen += buckets_[k];
    if (seen > rank) {
      return 2 * std::pow(kGamma, static_cast<double>(min_index_ + static_cast<int64_t>(k))) /
             (kGamma + 1);
    }
  }
  return 0;  // not reached: the buckets and zeros count every value
}

LatencySummary LatencySamples::summary() {
  if (exact()) return summarize_latencies(&values_);
  LatencySummary s;
  s.count = count_;
  s.mean = static_cast<double>(sum_ / static_cast<long double>(count_));
  s.p50 = quantile(0.50);
  s.p90 = quantile(0.90);
  s.p99 = quantile(0.99);
  return s;
}

}  // namespace kvsim::sim
