// The tables of a lone engine's run kept in memory for Python: the columns requests.csv and
// timeseries.csv hold, taken from the same tables the writers iterate
// (simulator/output/table_columns.h), in their order, as the integers and doubles the writers
// format, so that no CSV text is written and parsed back (kvsim.simulate's overhead,
// docs/python.md). The files' shortest round-trip decimals parse back to exactly these values
// (the tests read them with float_precision="round_trip"). A number without a value (tpot_s of
// a one-token output, an empty cell in the file) is NaN.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <span>
#include <vector>

#include "simulator/engine/sim_observer.h"
#include "simulator/output/interval_sampler.h"
#include "simulator/output/table_columns.h"

namespace kvsim::python {

// One numpy array per column of `Row`'s table: int64 for an integer column, float64 for a
// number column.
template <typename Row>
class ColumnArrays {
 public:
  explicit ColumnArrays(std::span<const sim::TableColumn<Row>> columns);
  void append(const Row& row);
  // {column: numpy array}, in the table's order.
  pybind11::dict to_numpy() const;

 private:
  std::span<const sim::TableColumn<Row>> columns_;
  std::vector<std::vector<int64_t>> integers_;  // per column; empty for a number column
  std::vector<std::vector<double>> numbers_;    // per column; empty for an integer column
};

class RequestColumns final : public sim::SimObserver {
 public:
  void on_request_finished(const sim::RequestRecord& request) override {
    arrays_.append(sim::RequestRow(request));
  }
  pybind11::dict to_numpy() const { return arrays_.to_numpy(); }

 private:
  ColumnArrays<sim::RequestRow> arrays_{sim::request_columns()};
};

class TimeseriesColumns final : public sim::EngineSeries {
 public:
  explicit TimeseriesColumns(int64_t interval_ns) : EngineSeries(interval_ns) {}
  pybind11::dict to_numpy() const { return arrays_.to_numpy(); }

 private:
  void on_row(const sim::SeriesRow& row) override { arrays_.append(row); }
  ColumnArrays<sim::SeriesRow> arrays_{sim::timeseries_columns()};
};

// {"requests": [names], "timeseries": [names]}: the tables' column names, for kvsim's tests.
pybind11::dict table_column_names();

}  // namespace kvsim::python
