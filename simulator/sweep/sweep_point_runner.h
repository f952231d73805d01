// The point runner of a sweep, by its kind: `kind: simulate` runs each point's scenario
// (sweep_simulation.h), `kind: ppl` each point's PPL job (kernels/ppl_job.h, one policy; its
// metrics are kernels::ppl_job_metrics). `kvsim sweep` and `kvsim.sweep()` (python/) run
// their points through it.
#pragma once

#include "core/base/status.h"
#include "simulator/sweep/sweep_runner.h"
#include "simulator/sweep/sweep_spec.h"

namespace kvsim::sim {

StatusOr<PointRunner> make_point_runner(const SweepSpec& spec);

}  // namespace kvsim::sim
