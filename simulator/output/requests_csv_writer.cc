#include "simulator/output/requests_csv_writer.h"

#include "simulator/output/table_columns.h"

namespace kvsim::sim {

StatusOr<std::unique_ptr<RequestsCsvWriter>> RequestsCsvWriter::create(const std::string& path,
                                                                       bool cluster_columns) {
  KVSIM_ASSIGN_OR_RETURN(auto file, OutputFile::create(path));
  file->write(column_names(request_columns()));
  if (cluster_columns) file->write("," + column_names(cluster_request_columns()));
  file->write("\n");
  return std::unique_ptr<RequestsCsvWriter>(
      new RequestsCsvWriter(std::move(file), cluster_columns));
}

void RequestsCsvWriter::on_request_finished(const RequestRecord& record) {
  const RequestRow row(record);
  write_cells(*file_, request_columns(), row, /*first_cell=*/true);
  if (cluster_columns_) write_cells(*file_, cluster_request_columns(), row, /*first_cell=*/false);
  file_->write("\n");
}

Status RequestsCsvWriter::finish(const EngineSnapshot& /*last*/) { return file_->close(); }

}  // namespace kvsim::sim
