#include "simulator/output/timeseries_writer.h"

#include "simulator/output/request_latency.h"

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

void TimeseriesWriter::on_row(const SeriesRow& row) {
  OutputFile& f = *file_;
  const EngineSnapshot& s = row.state;
  f.write_double(ns_to_s(row.time_ns));
  for (uint64_t value :
       {uint64_t{s.kv_blocks_used}, uint64_t{s.kv_blocks_cached_free}, uint64_t{s.kv_blocks_free},
        uint64_t{s.running}, uint64_t{s.waiting}, uint64_t{s.swapped}}) {
    f.write(",");
    f.write_uint(value);
  }
  f.write(",");
  f.write_double(row.tokens_per_s);
  f.write("\n");
}

Status TimeseriesWriter::finish(const EngineSnapshot& last) {
  KVSIM_RETURN_IF_ERROR(EngineSeries::finish(last));
  return file_->close();
}

}  // namespace kvsim::sim
