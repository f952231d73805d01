// The latencies of one finished request, as every output reports them (summary.json's
// percentiles, requests.csv, the GUI's CDFs). A client sees the engine's times plus its front
// end (RequestRecord::frontend_ns, cost_model.frontend_s): HTTP, tokenization and the hand-over
// to the engine before, the first and last chunk's way back after.
//   server_ttft_s  first token - arrival at the engine (queueing + prefill)
//   ttft_s         server_ttft_s + front end, as a client measures it
//   tpot_s         (finish - first token) / (output tokens - 1); none for a one-token output
//                  (every token takes the same way out, so the client's equals the engine's)
//   server_e2e_s   finish - arrival
//   e2e_s          server_e2e_s + front end
//   queue_s        first scheduled - arrival
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
  double server_ttft_s = 0;
  double server_e2e_s = 0;
};

// Of a finished request (its times are all set: checked).
inline RequestLatency latency_of(const RequestRecord& r) {
  KVSIM_CHECK(r.first_scheduled_ns && r.first_token_ns && r.finish_ns,
              "latency of a request that did not finish");
  RequestLatency l;
  l.server_ttft_s = ns_to_s(*r.first_token_ns - r.arrival_ns);
  l.ttft_s = ns_to_s(*r.first_token_ns - r.arrival_ns + r.frontend_ns);
  if (r.output_tokens > 1) {
    l.tpot_s = ns_to_s(*r.finish_ns - *r.first_token_ns) / (r.output_tokens - 1);
  }
  l.server_e2e_s = ns_to_s(*r.finish_ns - r.arrival_ns);
  l.e2e_s = ns_to_s(*r.finish_ns - r.arrival_ns + r.frontend_ns);
  l.queue_s = ns_to_s(*r.first_scheduled_ns - r.arrival_ns);
  return l;
}

}  // namespace kvsim::sim
