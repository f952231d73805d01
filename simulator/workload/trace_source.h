// TraceSource: a trace file replayed as a RequestSource.
//
// Arrivals are the trace's timestamps relative to its first kept row, multiplied by
// time_scale (2.0 = half the request rate, 0.5 = twice). Rows must be in non-decreasing time
// order; a row that goes back in time is malformed. A malformed row stops the stream with
// "file:line: what was wrong" unless skip_bad_rows, which skips and counts it (the first one
// is kept for the report). Failed requests of production logs (zero generated tokens) are
// skipped and counted in any case. At most max_requests requests are produced (0 = all).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "simulator/engine/request.h"
#include "simulator/workload/trace_reader.h"

namespace kvsim::sim {

struct TraceSourceOptions {
  double time_scale = 1.0;             // multiplies arrival offsets; > 0
  uint64_t max_requests = 0;           // 0 = every row
  bool skip_bad_rows = false;          // skip and count malformed rows instead of stopping
  uint32_t default_prefix_tokens = 0;  // csv rows with a prefix_group but no prefix_tokens
};

class TraceSource final : public RequestSource {
 public:
  TraceSource(std::unique_ptr<TraceReader> reader, TraceSourceOptions options);

  StatusOr<bool> next(RequestSpec* out) override;
  double fraction_consumed() const override;
  std::optional<uint64_t> expected_count() const override;
  WorkloadStats stats() const override { return stats_; }

 private:
  // Handles a malformed row: skipped and counted, or the error returned.
  Status bad_row(const Status& error);
  Status fill(TraceRow* row, RequestSpec* out);

  std::unique_ptr<TraceReader> reader_;
  TraceSourceOptions options_;
  TraceRow row_;
  WorkloadStats stats_;
  uint64_t produced_ = 0;
  bool started_ = false;
  int64_t first_ns_ = 0;
  int64_t last_ns_ = 0;
};

// Opens a trace as a RequestSource.
StatusOr<std::unique_ptr<RequestSource>> open_trace_source(const std::string& path,
                                                           TraceFormat format,
                                                           const TraceSourceOptions& options);

}  // namespace kvsim::sim
