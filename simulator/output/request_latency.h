// The latencies of one finished request, as every output reports them (summary.json's
// percentiles, requests.csv, the GUI's CDFs):
//   ttft_s   first token - arrival (queueing + prefill)
//   tpot_s   (finish - first token) / (output tokens - 1); none for a one-token output
//   e2e_s    finish - arrival
//   queue_s  first scheduled - arrival
#pragma once

#include <cstdint>
#include <optional>

#include "core/base/check.h"
#include "core/base/units.h"
#include "simulator/engine/sim_observer.h"

namespace kvsim::sim {

struct RequestLatency {
  double ttft_s = 0;
  std::optional<double> tpot_s;
  double e2e_s = 0;
  double queue_s = 0;
};

// Of a finished request (its times are all set: checked).
inline RequestLatency latency_of(const RequestRecord& r) {
  KVSIM_CHECK(r.first_scheduled_ns && r.first_token_ns && r.finish_ns,
              "latency of a request that did not finish");
  RequestLatency l;
  l.ttft_s = ns_to_s(*r.first_token_ns - r.arrival_ns);
  if (r.output_tokens > 1) {
    l.tpot_s = ns_to_s(*r.finish_ns - *r.first_token_ns) / (r.output_tokens - 1);
  }
  l.e2e_s = ns_to_s(*r.finish_ns - r.arrival_ns);
  l.queue_s = ns_to_s(*r.first_scheduled_ns - r.arrival_ns);
  return l;
}

}  // namespace kvsim::sim
