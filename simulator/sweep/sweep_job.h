// A sweep as `kvsim sweep` (cli/) and kvsim.sweep() (python/) run it: the preset, file or
// YAML text loaded and expanded into its points, then run with its kind's point runner
// (sweep_point_runner.h). Both front ends call these, so a sweep reads and runs the same from
// either; they add only their own progress, stop and printing.
#pragma once

#include <string>
#include <vector>

#include "core/base/status.h"
#include "simulator/sweep/sweep_runner.h"
#include "simulator/sweep/sweep_spec.h"

namespace kvsim::sim {

struct SweepRequest {
  std::string spec;       // a sweep preset name or YAML file; with spec_yaml, the name in messages
  std::string spec_yaml;  // not empty: the sweep as YAML text (spec is not read)
};

struct LoadedSweep {
  SweepSpec spec;
  std::vector<SweepPoint> points;  // the whole expansion, every shard's
};

StatusOr<LoadedSweep> load_sweep_request(const SweepRequest& request);

// Runs `options`' shard of the sweep's points; options.jobs 0 = one worker per core.
StatusOr<SweepRunResult> run_loaded_sweep(const LoadedSweep& sweep, SweepRunOptions options);

}  // namespace kvsim::sim
