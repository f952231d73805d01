#include "simulator/output/table_columns.h"

#include "core/base/units.h"

namespace kvsim::sim {
namespace {

using RequestColumn = TableColumn<RequestRow>;
using SeriesColumn = TableColumn<SeriesRow>;

constexpr RequestColumn kRequestColumns[] = {
    {"id", [](const RequestRow& r) { return static_cast<int64_t>(r.record.id); }},
    {"arrival_s", nullptr,
     [](const RequestRow& r) -> std::optional<double> { return ns_to_s(r.record.arrival_ns); }},
    {"prompt_tokens", [](const RequestRow& r) -> int64_t { return r.record.prompt_tokens; }},
    {"output_tokens", [](const RequestRow& r) -> int64_t { return r.record.output_tokens; }},
    {"cached_prompt_tokens",
     [](const RequestRow& r) -> int64_t { return r.record.cached_prompt_tokens; }},
    {"ttft_s", nullptr,
     [](const RequestRow& r) -> std::optional<double> { return r.latency.server_ttft_s; }},
    {"tpot_s", nullptr, [](const RequestRow& r) { return r.latency.tpot_s; }},
    {"e2e_s", nullptr,
     [](const RequestRow& r) -> std::optional<double> { return r.latency.server_e2e_s; }},
    {"preemptions", [](const RequestRow& r) -> int64_t { return r.record.preemptions; }},
    {"client_ttft_s", nullptr,
     [](const RequestRow& r) -> std::optional<double> { return r.latency.ttft_s; }},
    {"client_e2e_s", nullptr,
     [](const RequestRow& r) -> std::optional<double> { return r.latency.e2e_s; }},
};

constexpr RequestColumn kClusterRequestColumns[] = {
    {"replica", [](const RequestRow& r) -> int64_t { return r.record.replica; }},
    {"prefill_replica", [](const RequestRow& r) -> int64_t { return r.record.prefill_replica; }},
    {"kv_transfer_s", nullptr,
     [](const RequestRow& r) -> std::optional<double> {
       if (!r.record.prefilled_ns || !r.record.kv_arrived_ns) return std::nullopt;
       return ns_to_s(*r.record.kv_arrived_ns - *r.record.prefilled_ns);
     }},
};

constexpr SeriesColumn kTimeseriesColumns[] = {
    {"time_s", nullptr,
     [](const SeriesRow& r) -> std::optional<double> { return ns_to_s(r.time_ns); }},
    {"kv_blocks_used", [](const SeriesRow& r) -> int64_t { return r.state.kv_blocks_used; }},
    {"kv_blocks_cached_free",
     [](const SeriesRow& r) -> int64_t { return r.state.kv_blocks_cached_free; }},
    {"kv_blocks_free", [](const SeriesRow& r) -> int64_t { return r.state.kv_blocks_free; }},
    {"running", [](const SeriesRow& r) -> int64_t { return r.state.running; }},
    {"waiting", [](const SeriesRow& r) -> int64_t { return r.state.waiting; }},
    {"swapped", [](const SeriesRow& r) -> int64_t { return r.state.swapped; }},
    {"tokens_per_s", nullptr,
     [](const SeriesRow& r) -> std::optional<double> { return r.tokens_per_s; }},
};

}  // namespace

std::span<const TableColumn<RequestRow>> request_columns() { return kRequestColumns; }

std::span<const TableColumn<RequestRow>> cluster_request_columns() {
  return kClusterRequestColumns;
}

std::span<const TableColumn<SeriesRow>> timeseries_columns() { return kTimeseriesColumns; }

}  // namespace kvsim::sim
