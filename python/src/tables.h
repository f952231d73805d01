// The tables of a lone engine's run kept in memory for Python: the columns requests.csv and
// timeseries.csv hold (simulator/output/requests_csv_writer.h, timeseries_writer.h), in their
// order, as the doubles and integers the writers format, so that no CSV text is written and
// parsed back (kvsim.simulate's overhead, docs/python.md). The files' shortest round-trip
// decimals parse back to exactly these values (the tests read them with
// float_precision="round_trip"). A request with one output token has tpot_s NaN (an empty
// cell in the file).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

#include "simulator/engine/sim_observer.h"
#include "simulator/output/interval_sampler.h"

namespace kvsim::python {

class RequestColumns final : public sim::SimObserver {
 public:
  void on_request_finished(const sim::RequestRecord& request) override;
  // {column: numpy array}, requests.csv's columns in order.
  pybind11::dict to_numpy() const;

 private:
  std::vector<int64_t> id_, prompt_tokens_, output_tokens_, cached_prompt_tokens_, preemptions_;
  std::vector<double> arrival_s_, ttft_s_, tpot_s_, e2e_s_;
};

class TimeseriesColumns final : public sim::EngineSeries {
 public:
  explicit TimeseriesColumns(int64_t interval_ns) : EngineSeries(interval_ns) {}
  // {column: numpy array}, timeseries.csv's columns in order.
  pybind11::dict to_numpy() const;

 private:
  void on_row(const sim::SeriesRow& row) override;
  std::vector<double> time_s_, tokens_per_s_;
  std::vector<int64_t> used_, cached_free_, free_, running_, waiting_, swapped_;
};

}  // namespace kvsim::python
