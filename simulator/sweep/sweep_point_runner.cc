#include "simulator/sweep/sweep_point_runner.h"

#include <string>

#include "kernels/ppl_job.h"
#include "simulator/sweep/sweep_simulation.h"

namespace kvsim::sim {
namespace {

// A `kind: ppl` point: its configuration is a PPL job (kernels/ppl_job.h) with one policy.
PointRunner ppl_point_runner(const std::string& base_dir) {
  return [base_dir](const SweepPoint& point, const std::filesystem::path&) {
    PointOutcome outcome;
    auto job = kernels::ppl_job_from_config(point.config, base_dir);
    auto result = job.is_ok() ? kernels::run_ppl_job(*job) : job.status();
    if (!result.is_ok()) return PointOutcome{result.status(), {}};
    outcome.metrics = kernels::ppl_job_metrics(result->report);
    return outcome;
  };
}

}  // namespace

StatusOr<PointRunner> make_point_runner(const SweepSpec& spec) {
  if (spec.kind == SweepKind::kSimulate) return make_simulation_point_runner(spec);
  return ppl_point_runner(spec.base_dir);
}

}  // namespace kvsim::sim
