#include "python/src/tables.h"

#include <pybind11/numpy.h>

#include <limits>

#include "simulator/output/request_latency.h"

namespace py = pybind11;

namespace kvsim::python {
namespace {

template <typename T>
py::array_t<T> array_of(const std::vector<T>& values) {
  return py::array_t<T>(static_cast<py::ssize_t>(values.size()), values.data());
}

}  // namespace

void RequestColumns::on_request_finished(const sim::RequestRecord& r) {
  const sim::RequestLatency latency = sim::latency_of(r);
  id_.push_back(static_cast<int64_t>(r.id));
  arrival_s_.push_back(ns_to_s(r.arrival_ns));
  prompt_tokens_.push_back(r.prompt_tokens);
  output_tokens_.push_back(r.output_tokens);
  cached_prompt_tokens_.push_back(r.cached_prompt_tokens);
  ttft_s_.push_back(latency.ttft_s);
  tpot_s_.push_back(latency.tpot_s.value_or(std::numeric_limits<double>::quiet_NaN()));
  e2e_s_.push_back(latency.e2e_s);
  preemptions_.push_back(r.preemptions);
}

py::dict RequestColumns::to_numpy() const {
  py::dict out;
  out["id"] = array_of(id_);
  out["arrival_s"] = array_of(arrival_s_);
  out["prompt_tokens"] = array_of(prompt_tokens_);
  out["output_tokens"] = array_of(output_tokens_);
  out["cached_prompt_tokens"] = array_of(cached_prompt_tokens_);
  out["ttft_s"] = array_of(ttft_s_);
  out["tpot_s"] = array_of(tpot_s_);
  out["e2e_s"] = array_of(e2e_s_);
  out["preemptions"] = array_of(preemptions_);
  return out;
}

void TimeseriesColumns::on_row(const sim::SeriesRow& row) {
  const sim::EngineSnapshot& s = row.state;
  time_s_.push_back(ns_to_s(row.time_ns));
  used_.push_back(s.kv_blocks_used);
  cached_free_.push_back(s.kv_blocks_cached_free);
  free_.push_back(s.kv_blocks_free);
  running_.push_back(s.running);
  waiting_.push_back(s.waiting);
  swapped_.push_back(s.swapped);
  tokens_per_s_.push_back(row.tokens_per_s);
}

py::dict TimeseriesColumns::to_numpy() const {
  py::dict out;
  out["time_s"] = array_of(time_s_);
  out["kv_blocks_used"] = array_of(used_);
  out["kv_blocks_cached_free"] = array_of(cached_free_);
  out["kv_blocks_free"] = array_of(free_);
  out["running"] = array_of(running_);
  out["waiting"] = array_of(waiting_);
  out["swapped"] = array_of(swapped_);
  out["tokens_per_s"] = array_of(tokens_per_s_);
  return out;
}

}  // namespace kvsim::python
