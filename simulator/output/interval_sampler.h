// The time series every output samples (timeseries.csv, a cluster's replicas.csv and
// tiers.csv, the GUI's curves), written once.
//
// IntervalSampler: row k of a series stands for time k x interval (k = 1, 2, ...). The sampler
// is told how far the simulation has got and emits each row time it has passed, in order:
//   advance_to(t, inclusive)  rows for times < t (or <= t); the state a row shows is whatever
//                             the caller's emit_row reads at that moment
//   finish(last, pending)     rows up to and including the run's end; then, when the last
//                             window holds work (`pending`), the partial row after it, so the
//                             run's end is visible
//
// EngineSeries: a SimObserver that turns one engine's iterations into rows: a row shows the
// state after the last iteration that ended at or before its time, and counts the tokens of
// the iterations that ended in ((k-1) interval, k interval]:
//   tokens_per_s         tokens computed (prefill + decode) / interval
//   output_tokens_per_s  output tokens sampled / interval
// (An idle engine has nothing running or waiting, so sampling at iteration ends is exact.)
#pragma once

#include <cstdint>

#include "core/base/check.h"
#include "core/base/units.h"
#include "simulator/engine/sim_observer.h"

namespace kvsim::sim {

class IntervalSampler {
 public:
  explicit IntervalSampler(int64_t interval_ns)
      : interval_ns_(interval_ns), next_row_ns_(interval_ns) {
    KVSIM_CHECK(interval_ns > 0, "time-series interval must be positive");
  }

  // Calls emit_row(row_time_ns) for every row time before `time_ns` (inclusive: up to it).
  // (Not `emit`: Qt defines that word away.)
  template <typename Emit>
  void advance_to(int64_t time_ns, bool inclusive, Emit&& emit_row) {
    while (next_row_ns_ < time_ns || (inclusive && next_row_ns_ == time_ns)) {
      emit_row(next_row_ns_);
      next_row_ns_ += interval_ns_;
    }
  }
  // The rows up to the run's end at `last_ns`, and the partial row after it when `pending`.
  template <typename Emit, typename Pending>
  void finish(int64_t last_ns, Pending&& pending, Emit&& emit_row) {
    advance_to(last_ns, /*inclusive=*/true, emit_row);
    if (pending()) advance_to(next_row_ns_, /*inclusive=*/true, emit_row);
  }
  int64_t interval_ns() const { return interval_ns_; }
  double interval_s() const { return ns_to_s(interval_ns_); }

 private:
  int64_t interval_ns_;
  int64_t next_row_ns_;
};

// One row of an engine's series.
struct SeriesRow {
  int64_t time_ns = 0;
  EngineSnapshot state;  // after the last iteration that ended at or before time_ns
  double tokens_per_s = 0;
  double output_tokens_per_s = 0;
};

class EngineSeries : public SimObserver {
 public:
  explicit EngineSeries(int64_t interval_ns) : sampler_(interval_ns) {}

  void on_iteration(const IterationRecord& iteration, const EngineSnapshot& after) final {
    sampler_.advance_to(iteration.end_ns, /*inclusive=*/false, [this](int64_t t) { add_row(t); });
    window_tokens_ += iteration.shape.new_tokens;
    window_output_tokens_ += iteration.output_tokens;
    state_ = after;
  }
  Status finish(const EngineSnapshot& last) override {
    state_ = last;
    sampler_.finish(
        last.time_ns, [this] { return window_tokens_ > 0; }, [this](int64_t t) { add_row(t); });
    return Status::ok();
  }

 protected:
  // Receives each row as it is due.
  virtual void on_row(const SeriesRow& row) = 0;

 private:
  void add_row(int64_t time_ns) {
    const double interval_s = sampler_.interval_s();
    on_row(SeriesRow{time_ns, state_, static_cast<double>(window_tokens_) / interval_s,
                     static_cast<double>(window_output_tokens_) / interval_s});
    window_tokens_ = 0;
    window_output_tokens_ = 0;
  }

  IntervalSampler sampler_;
  EngineSnapshot state_;
  uint64_t window_tokens_ = 0;
  uint64_t window_output_tokens_ = 0;
};

}  // namespace kvsim::sim
