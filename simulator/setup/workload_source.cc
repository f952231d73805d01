#include "simulator/setup/workload_source.h"

#include <algorithm>

#include "core/base/units.h"
#include "simulator/workload/max_concurrency_source.h"
#include "simulator/workload/trace_source.h"

namespace kvsim::sim {

namespace {

StatusOr<std::unique_ptr<RequestSource>> open_source(const WorkloadSection& w, uint64_t seed) {
  if (w.trace.empty()) {
    SyntheticConfig config = w.synthetic;
    if (w.rate > 0) config.rate_per_s = w.rate;
    if (w.max_requests > 0) config.num_requests = std::min(config.num_requests, w.max_requests);
    const double time_scale = w.rate > 0 ? 1.0 : w.time_scale;
    KVSIM_ASSIGN_OR_RETURN(auto source, SyntheticSource::create(config, seed, time_scale));
    return std::unique_ptr<RequestSource>(std::move(source));
  }
  TraceSourceOptions options;
  options.time_scale = w.time_scale;
  options.max_requests = w.max_requests;
  options.skip_bad_rows = w.skip_bad_rows;
  options.default_prefix_tokens = w.prefix_tokens;
  if (w.rate > 0) {
    KVSIM_ASSIGN_OR_RETURN(const double natural, trace_rate(w));
    options.time_scale = natural / w.rate;
  }
  return open_trace_source(w.trace, w.trace_format, options);
}

}  // namespace

StatusOr<std::unique_ptr<RequestSource>> make_request_source(const WorkloadSection& w,
                                                             uint64_t seed) {
  KVSIM_ASSIGN_OR_RETURN(auto source, open_source(w, seed));
  if (w.max_concurrency == 0) return source;
  return std::unique_ptr<RequestSource>(
      std::make_unique<MaxConcurrencySource>(std::move(source), w.max_concurrency));
}

StatusOr<double> trace_rate(const WorkloadSection& w) {
  TraceSourceOptions options;
  options.max_requests = w.max_requests;
  options.skip_bad_rows = w.skip_bad_rows;
  KVSIM_ASSIGN_OR_RETURN(auto source, open_trace_source(w.trace, w.trace_format, options));
  RequestSpec request;
  uint64_t count = 0;
  int64_t last_ns = 0;
  for (;;) {
    KVSIM_ASSIGN_OR_RETURN(const bool more, source->next(&request));
    if (!more) break;
    ++count;
    last_ns = request.arrival_ns;
  }
  if (count < 2 || last_ns == 0) {
    return Status::invalid_argument(w.trace +
                                    ": workload.rate needs a trace with arrivals "
                                    "spread over time (at least two distinct timestamps)");
  }
  return static_cast<double>(count - 1) / ns_to_s(last_ns);
}

StatusOr<double> workload_rate(const WorkloadSection& w) {
  if (w.rate > 0) return w.rate;
  if (w.trace.empty() && !has_single_rate(w.synthetic)) {
    return Status::invalid_argument(
        "a burst or staged synthetic workload has no single rate (a sweep over rates needs one)");
  }
  if (w.trace.empty()) return w.synthetic.rate_per_s;
  KVSIM_ASSIGN_OR_RETURN(const double natural, trace_rate(w));
  return natural / w.time_scale;
}

}  // namespace kvsim::sim
