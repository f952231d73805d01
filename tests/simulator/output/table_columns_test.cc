// The column tables (simulator/output/table_columns.h): requests.csv's and timeseries.csv's
// headers are the tables' names, in the tables' order, and each cell is the table's value.
#include "simulator/output/table_columns.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "simulator/output/requests_csv_writer.h"
#include "simulator/output/timeseries_writer.h"

namespace kvsim::sim {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> file_lines(const fs::path& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

template <typename Row>
void expect_one_accessor_each(std::span<const TableColumn<Row>> columns) {
  for (const TableColumn<Row>& column : columns) {
    EXPECT_NE(column.integer == nullptr, column.number == nullptr) << column.name;
  }
}

// Finished at 3.5 s after arriving at 1 s, first token at 1.5 s.
RequestRecord finished(uint64_t id, uint32_t output_tokens) {
  RequestRecord r;
  r.id = id;
  r.arrival_ns = 1'000'000'000;
  r.first_scheduled_ns = 1'250'000'000;
  r.first_token_ns = 1'500'000'000;
  r.finish_ns = 3'500'000'000;
  r.prompt_tokens = 100;
  r.output_tokens = output_tokens;
  r.cached_prompt_tokens = 32;
  r.preemptions = 1;
  return r;
}

TEST(TableColumns, EveryColumnHasOneAccessor) {
  expect_one_accessor_each(request_columns());
  expect_one_accessor_each(cluster_request_columns());
  expect_one_accessor_each(timeseries_columns());
}

TEST(TableColumns, RequestsCsvHeaderAndCellsComeFromTheTables) {
  const fs::path dir = fs::temp_directory_path() / "kvsim_table_columns_requests";
  fs::remove_all(dir);
  for (const bool cluster : {false, true}) {
    const fs::path path = dir / (cluster ? "cluster.csv" : "engine.csv");
    auto writer = RequestsCsvWriter::create(path.string(), cluster);
    ASSERT_TRUE(writer.is_ok()) << writer.status().message();
    RequestRecord two = finished(7, 3);
    two.replica = 1;
    two.prefill_replica = 0;
    two.prefilled_ns = 1'400'000'000;
    two.kv_arrived_ns = 1'450'000'000;
    (*writer)->on_request_finished(two);
    (*writer)->on_request_finished(finished(8, 1));  // one output token: no TPOT
    ASSERT_TRUE((*writer)->finish(EngineSnapshot{}).is_ok());

    std::string header = column_names(request_columns());
    if (cluster) header += "," + column_names(cluster_request_columns());
    const std::vector<std::string> lines = file_lines(path);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], header);
    // No front end on these records: the client's times are the engine's.
    const std::string engine_cells[] = {"7,1,100,3,32,0.5,1,2.5,1,0.5,2.5",
                                        "8,1,100,1,32,0.5,,2.5,1,0.5,2.5"};
    EXPECT_EQ(lines[1], engine_cells[0] + (cluster ? ",1,0,0.05" : ""));
    EXPECT_EQ(lines[2], engine_cells[1] + (cluster ? ",-1,-1," : ""));
  }
  EXPECT_EQ(column_names(request_columns()),
            "id,arrival_s,prompt_tokens,output_tokens,cached_prompt_tokens,ttft_s,tpot_s,e2e_s,"
            "preemptions,client_ttft_s,client_e2e_s");
  EXPECT_EQ(column_names(cluster_request_columns()), "replica,prefill_replica,kv_transfer_s");
  fs::remove_all(dir);
}

TEST(TableColumns, TimeseriesCsvHeaderAndCellsComeFromTheTable) {
  const fs::path path = fs::temp_directory_path() / "kvsim_table_columns_timeseries.csv";
  auto writer = TimeseriesWriter::create(path.string(), 1'000'000'000);
  ASSERT_TRUE(writer.is_ok()) << writer.status().message();
  IterationRecord iteration;
  iteration.end_ns = 500'000'000;
  iteration.shape.new_tokens = 40;
  EngineSnapshot after{0, 5, 2, 9, 3, 4, 1, 8};
  (*writer)->on_iteration(iteration, after);
  after.time_ns = 600'000'000;
  ASSERT_TRUE((*writer)->finish(after).is_ok());

  const std::vector<std::string> lines = file_lines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], column_names(timeseries_columns()));
  EXPECT_EQ(lines[0],
            "time_s,kv_blocks_used,kv_blocks_cached_free,kv_blocks_free,running,waiting,swapped,"
            "tokens_per_s");
  EXPECT_EQ(lines[1], "1,5,2,9,3,4,1,40");
  fs::remove(path);
}

}  // namespace
}  // namespace kvsim::sim
