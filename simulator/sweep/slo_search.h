// SLO capacity search: the highest load at which a configuration still meets its latency SLO.
//
// YAML (the `slo:` block of a sweep):
//   slo:
//     ttft_p99_s: 2.0          # <metric>_<stat>_s -> the limit on summary metric <metric>_s.<stat>
//     tpot_p99_s: 0.1          #   (stat: mean, p50, p90, p99)
//     start_rate_per_s: 4      # the load factor 1 (default: the workload's own arrival rate)
//     precision: 1.02          # stop when the bracket [lo, hi] has hi / lo <= precision
//
// search_max_load() brackets the answer by doubling (or halving) a load factor from 1, then
// bisects geometrically. The answer `lo` met the SLO and `hi` <= lo * precision did not, so
// with precision <= 1.1 "10% more load" fails whenever the metrics grow with load.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/config/config_node.h"
#include "simulator/sweep/sweep_runner.h"

namespace kvsim::sim {

struct SloLimit {
  std::string metric;  // flattened metric name, e.g. "ttft_s.p99"
  double max = 0;      // the metric must be <= max
};

struct SloSpec {
  std::vector<SloLimit> limits;
  double start_rate_per_s = 0;  // arrival rate at load factor 1; 0 = the workload's own
  double precision = 1.02;
  int max_evaluations = 60;
};

StatusOr<SloSpec> slo_from_config(const ConfigNode& node);

// True when every limit holds; otherwise *violated says which one and by how much.
bool meets_slo(const FlatMetrics& metrics, const SloSpec& slo, std::string* violated);

// Metrics of one run at a load factor (1 = the configuration as given).
using LoadRunner = std::function<StatusOr<FlatMetrics>(double load_factor)>;

struct SloSearchResult {
  bool found = false;         // some load met the SLO
  double load_factor = 0;     // the highest load factor found to meet it
  double failing_factor = 0;  // the lowest load factor found to miss it (0 = none within range)
  FlatMetrics metrics;        // the metrics at load_factor
  int evaluations = 0;
  // What stopped the load from rising, read at the lowest failing load: "drops (N requests
  // dropped)" when it dropped more requests than the answer did, "KV memory (<limit missed>;
  // KV peak P%, N preemptions)" when its pool preempted or ran >= 95% full, else the limit it
  // missed ("ttft_s.p99 = 3.1 > 2"); "none (no load up to the highest tried missed the SLO)"
  // when no load failed.
  std::string binding;
};

StatusOr<SloSearchResult> search_max_load(const LoadRunner& run, const SloSpec& slo);

}  // namespace kvsim::sim
