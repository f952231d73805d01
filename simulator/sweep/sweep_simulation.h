// The point runner of `kind: simulate` sweeps: each point's configuration is a scenario.
//
// Without an `slo:` block a point runs its scenario once, writes summary.json, requests.csv
// and timeseries.csv into its folder, and reports the flattened numeric summary
// ("ttft_s.p99", "output_tokens_per_s", ...).
//
// With an `slo:` block a point is a capacity search (slo_search.h): the workload's arrival
// rate (workload.rate; the start is the scenario's own rate, or slo.start_rate_per_s) is
// scaled by a load factor until the highest rate that meets every limit is bracketed within
// slo.precision. The point then reports, besides the metrics at that rate:
//   slo.found               1 when some rate met the SLO, else 0
//   slo.max_rate_per_s      the highest arrival rate found to meet it
//   slo.failing_rate_per_s  the lowest rate found to miss it (<= max x precision)
//   slo.evaluations         simulations run
//   slo.num_devices         devices the configuration occupies (num_devices)
//   slo.cost_per_million_output_tokens_usd, slo.cost_per_million_tokens_usd
//       price_per_hour_usd x num_devices / (tokens/s x 3600) x 10^6, when the device preset
//       has an hourly price
// and writes the files of the run at that rate.
#pragma once

#include "core/base/status.h"
#include "simulator/output/metrics.h"
#include "simulator/sweep/sweep_runner.h"
#include "simulator/sweep/sweep_spec.h"

namespace kvsim::sim {

// Checks the sweep's slo block (if any) and returns the runner for its points.
StatusOr<PointRunner> make_simulation_point_runner(const SweepSpec& spec);

// The numeric leaves of a summary, flattened ("ttft_s.p99"); booleans count as 0/1.
FlatMetrics flat_summary_metrics(const Summary& summary);

}  // namespace kvsim::sim
