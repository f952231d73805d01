// The columns of the two tables a run reports row by row, defined once: requests.csv
// (requests_csv_writer.h), timeseries.csv (timeseries_writer.h), the Python module's in-memory
// tables (python/src/tables.h) and the GUI's series (gui/sim_run.h) all iterate these lists, so
// a column's name, its place and how a row's value is read are written in one place.
//
//   request_columns()          one row per finished request (RequestRow):
//     id                       the request's id (0, 1, 2, ... in arrival order)
//     arrival_s                when it arrived
//     prompt_tokens, output_tokens
//     cached_prompt_tokens     prefix-cache hit at first admission
//     ttft_s, tpot_s, e2e_s    its latencies at the engine (request_latency.h: server_ttft_s,
//                              server_e2e_s); tpot_s has no value for a one-token output
//     preemptions
//     client_ttft_s, client_e2e_s  as a client sees them: the engine's plus the front end
//                              (cost_model.frontend_s), what the summary's percentiles are of
//   cluster_request_columns()  what a cluster's requests.csv adds after them:
//     replica                  the replica (index) the request finished on
//     prefill_replica          the one its prefill ran on
//     kv_transfer_s            from prefill end to KV arrival on the decode replica (no value
//                              when colocated)
//   timeseries_columns()       one row per interval of simulated time (SeriesRow,
//                              interval_sampler.h): time_s, kv_blocks_used,
//                              kv_blocks_cached_free, kv_blocks_free, running, waiting,
//                              swapped, tokens_per_s
//
// A column is an integer column (`integer` set) or a number column (`number` set). A number
// without a value is an empty CSV cell and NaN in Python. Times are in seconds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "simulator/engine/sim_observer.h"
#include "simulator/io/output_file.h"
#include "simulator/output/interval_sampler.h"
#include "simulator/output/request_latency.h"

namespace kvsim::sim {

template <typename Row>
struct TableColumn {
  std::string_view name;
  int64_t (*integer)(const Row&) = nullptr;
  std::optional<double> (*number)(const Row&) = nullptr;
};

// A finished request with its latencies, computed once for the row.
struct RequestRow {
  explicit RequestRow(const RequestRecord& r) : record(r), latency(latency_of(r)) {}
  const RequestRecord& record;
  RequestLatency latency;
};

std::span<const TableColumn<RequestRow>> request_columns();
std::span<const TableColumn<RequestRow>> cluster_request_columns();
std::span<const TableColumn<SeriesRow>> timeseries_columns();

// "name,name,...": the columns' names joined by commas (a CSV header, without its newline).
template <typename Row>
std::string column_names(std::span<const TableColumn<Row>> columns) {
  std::string out;
  for (const TableColumn<Row>& column : columns) {
    if (!out.empty()) out += ',';
    out += column.name;
  }
  return out;
}

// Writes the row's cells, each after a comma except the first when `first_cell` (no newline):
// integers in decimal, numbers in their shortest round-trip form, nothing for a missing value.
template <typename Row>
void write_cells(OutputFile& file, std::span<const TableColumn<Row>> columns, const Row& row,
                 bool first_cell) {
  for (const TableColumn<Row>& column : columns) {
    if (!first_cell) file.write(",");
    first_cell = false;
    if (column.integer != nullptr) {
      file.write_int(column.integer(row));
    } else if (const std::optional<double> value = column.number(row)) {
      file.write_double(*value);
    }
  }
}

}  // namespace kvsim::sim
