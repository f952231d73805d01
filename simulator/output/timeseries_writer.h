// TimeseriesWriter: DIR/timeseries.csv, the engine's series (simulator/output/interval_sampler.h)
// streamed to disk, one row per interval of simulated time; its columns are
// timeseries_columns() (simulator/output/table_columns.h): time_s, the KV blocks, the
// request counts, tokens_per_s.
#pragma once

#include <memory>
#include <string>

#include "simulator/io/output_file.h"
#include "simulator/output/interval_sampler.h"

namespace kvsim::sim {

class TimeseriesWriter final : public EngineSeries {
 public:
  static StatusOr<std::unique_ptr<TimeseriesWriter>> create(const std::string& path,
                                                            int64_t interval_ns);

  Status finish(const EngineSnapshot& last) override;

 private:
  TimeseriesWriter(std::unique_ptr<OutputFile> file, int64_t interval_ns)
      : EngineSeries(interval_ns), file_(std::move(file)) {}
  void on_row(const SeriesRow& row) override;

  std::unique_ptr<OutputFile> file_;
};

}  // namespace kvsim::sim
