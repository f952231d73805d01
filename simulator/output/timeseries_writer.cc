#include "simulator/output/timeseries_writer.h"

#include "simulator/output/table_columns.h"

namespace kvsim::sim {

StatusOr<std::unique_ptr<TimeseriesWriter>> TimeseriesWriter::create(const std::string& path,
                                                                     int64_t interval_ns) {
  KVSIM_CHECK(interval_ns > 0, "time-series interval must be positive");
  KVSIM_ASSIGN_OR_RETURN(auto file, OutputFile::create(path));
  file->write(column_names(timeseries_columns()) + "\n");
  return std::unique_ptr<TimeseriesWriter>(new TimeseriesWriter(std::move(file), interval_ns));
}

void TimeseriesWriter::on_row(const SeriesRow& row) {
  write_cells(*file_, timeseries_columns(), row, /*first_cell=*/true);
  file_->write("\n");
}

Status TimeseriesWriter::finish(const EngineSnapshot& last) {
  KVSIM_RETURN_IF_ERROR(EngineSeries::finish(last));
  return file_->close();
}

}  // namespace kvsim::sim
