#include "simulator/sweep/sweep_job.h"

#include <algorithm>
#include <thread>

#include "simulator/sweep/sweep_point_runner.h"

namespace kvsim::sim {

StatusOr<LoadedSweep> load_sweep_request(const SweepRequest& request) {
  if (request.spec.empty() && request.spec_yaml.empty()) {
    return Status::invalid_argument("give a sweep file or name");
  }
  LoadedSweep sweep;
  KVSIM_ASSIGN_OR_RETURN(sweep.spec, request.spec_yaml.empty()
                                         ? load_sweep(request.spec)
                                         : sweep_from_yaml(request.spec_yaml, request.spec));
  KVSIM_ASSIGN_OR_RETURN(sweep.points, expand_sweep(sweep.spec));
  return sweep;
}

StatusOr<SweepRunResult> run_loaded_sweep(const LoadedSweep& sweep, SweepRunOptions options) {
  KVSIM_ASSIGN_OR_RETURN(const PointRunner runner, make_point_runner(sweep.spec));
  if (options.jobs == 0) options.jobs = std::max(1u, std::thread::hardware_concurrency());
  return run_sweep(sweep.spec, sweep.points, runner, options);
}

}  // namespace kvsim::sim
