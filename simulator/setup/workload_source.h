// The workload of a scenario as the engine consumes it: a trace (streamed) or the synthetic
// generator, with max_requests, time_scale and the rate override applied.
#pragma once

#include <cstdint>
#include <memory>

#include "core/base/status.h"
#include "simulator/engine/request.h"
#include "simulator/scenario/scenario.h"

namespace kvsim::sim {

// A trace's rate override reads the trace once first to learn its natural rate
// ((n - 1) / span of the arrivals), then scales arrivals by natural / rate.
StatusOr<std::unique_ptr<RequestSource>> make_request_source(const WorkloadSection& workload,
                                                             uint64_t seed);

// The natural arrival rate of a trace: (n - 1) / (last arrival - first arrival), read once.
StatusOr<double> trace_rate(const WorkloadSection& workload);

// The arrival rate a workload runs at, requests/s: the rate override, else the synthetic
// rate, else the trace's natural rate divided by time_scale.
StatusOr<double> workload_rate(const WorkloadSection& workload);

}  // namespace kvsim::sim
