// The text summary's judgement of a run: what bound it, and why requests were dropped.
//
// summary_reading() weighs three signs, each from the Summary:
//   queued     requests waited: queue_s.mean > 10% of e2e_s.mean (the engines fell behind
//              the arrivals; below that the arrival rate, not the deployment, set the pace)
//   busy       the busiest engine iterated >= 90% of the run (busy_fraction; a cluster's
//              busiest replica)
//   KV full    the pool ran out: any preemption, or kv_usage_peak >= 95%
// and names what binds: compute (queued and busy, KV full or not), KV memory (queued, KV full,
// engines idle part of the time), the scheduler's batch limits (queued with neither), or the
// arrival rate (not queued). An engine iterates whenever it holds a request, so busy alone
// does not mean saturated: queueing decides whether anything binds at all.
#pragma once

#include <string>

#include "simulator/output/metrics.h"

namespace kvsim::sim {

// "reading  ...\n": one line naming what bound the run and the figures that show it.
std::string summary_reading(const Summary& summary);

// "dropped  2 too_long (longer than the model's context), 1 never_fits (...)\n" for the
// reasons with a count, under their summary.json names; "" when nothing was dropped.
std::string dropped_reasons(const Summary& summary);

}  // namespace kvsim::sim
