#include "simulator/output/timeseries_writer.h"

namespace kvsim::sim {

StatusOr<std::unique_ptr<TimeseriesWriter>> TimeseriesWriter::create(const std::string& path,
                                                                     int64_t interval_ns) {
  KVSIM_CHECK(interval_ns > 0, "time-series interval must be positive");
  KVSIM_ASSIGN_OR_RETURN(auto file, OutputFile::create(path));
  file->write(
      "time_s,kv_blocks_used,kv_blocks_cached_free,kv_blocks_free,running,waiting,"
      "swapped,tokens_per_s\n");
  return std::unique_ptr<TimeseriesWriter>(new TimeseriesWriter(std::move(file), interval_ns));
}

TimeseriesWriter::TimeseriesWriter(std::unique_ptr<OutputFile> file, int64_t interval_ns)
    : file_(std::move(file)), interval_ns_(interval_ns), next_row_ns_(interval_ns) {}

void TimeseriesWriter::emit_rows_until(int64_t time_ns, bool inclusive) {
  while (next_row_ns_ < time_ns || (inclusive && next_row_ns_ == time_ns)) {
    OutputFile& f = *file_;
    f.write_double(static_cast<double>(next_row_ns_) / 1e9);
    for (uint64_t value : {uint64_t{state_.kv_blocks_used}, uint64_t{state_.kv_blocks_cached_free},
                           uint64_t{state_.kv_blocks_free}, uint64_t{state_.running},
                           uint64_t{state_.waiting}, uint64_t{state_.swapped}}) {
      f.write(",");
      f.write_uint(value);
    }
    f.write(",");
    f.write_double(static_cast<double>(window_tokens_) / (static_cast<double>(interval_ns_) / 1e9));
    f.write("\n");
    window_tokens_ = 0;
    next_row_ns_ += interval_ns_;
  }
}

void TimeseriesWriter::on_iteration(const IterationRecord& iteration, const EngineSnapshot& after) {
  emit_rows_until(iteration.end_ns, /*inclusive=*/false);
  window_tokens_ += iteration.shape.new_tokens;
  state_ = after;
}

Status TimeseriesWriter::finish(const EngineSnapshot& last) {
  state_ = last;
  emit_rows_until(last.time_ns, /*inclusive=*/true);
  // The partial last window, so the run's end is visible.
  if (window_tokens_ > 0) emit_rows_until(next_row_ns_, /*inclusive=*/true);
  return file_->close();
}

}  // namespace kvsim::sim
