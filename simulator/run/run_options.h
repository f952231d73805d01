// What a caller asks of a run (the CLI, sweeps, the GUI, tests), and the pieces every run
// shares: where its files go and how its summary ends.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "simulator/engine/engine.h"
#include "simulator/output/metrics.h"
#include "simulator/output/stage_metrics.h"
#include "simulator/scenario/scenario.h"

namespace kvsim::sim {

struct RunOptions {
  std::string out_dir;       // overrides output.dir; empty and no output.dir = no files
  std::string chrome_trace;  // overrides output.chrome_trace
  std::function<void(const Progress&)> progress;
  std::vector<SimObserver*> observers;      // more observers (the GUI's plots)
  const std::atomic<bool>* stop = nullptr;  // set: the run ends soon with a cancelled Status
  // Threads a cluster run may use (simulator/cluster/cluster.h: parallel runs, byte-identical
  // to serial ones); 0: the machine's cores. A lone engine runs on one.
  uint32_t threads = 0;
};

// The folder a run writes to: the option, else the scenario's output.dir ("" = no files).
std::string output_dir(const Scenario& scenario, const RunOptions& options);
// The Chrome trace file: the option, else the scenario's ("" = none).
std::string chrome_trace_path(const Scenario& scenario, const RunOptions& options);
// output.timeseries_interval_s in nanoseconds, at least 1.
int64_t timeseries_interval_ns(const OutputSection& output);

// The per-stage collector of a staged synthetic workload (observe the run with it, then set
// Summary::stages from its build()); null for any other workload.
std::unique_ptr<StageCollector> make_stage_collector(const WorkloadSection& workload);

// The end of a run: DIR/summary.json written (when `dir` is set), then summary->wall_s set to
// the wall time since `wall_start`.
Status finish_summary(const std::string& dir, std::chrono::steady_clock::time_point wall_start,
                      Summary* summary);

}  // namespace kvsim::sim
