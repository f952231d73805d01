#include "simulator/run/run_options.h"

#include <algorithm>
#include <cmath>

#include "core/base/units.h"
#include "simulator/io/atomic_file.h"

namespace kvsim::sim {

std::string output_dir(const Scenario& scenario, const RunOptions& options) {
  return !options.out_dir.empty() ? options.out_dir : scenario.output.dir;
}

std::string chrome_trace_path(const Scenario& scenario, const RunOptions& options) {
  return !options.chrome_trace.empty() ? options.chrome_trace : scenario.output.chrome_trace;
}

int64_t timeseries_interval_ns(const OutputSection& output) {
  return std::max<int64_t>(1, std::llround(output.timeseries_interval_s * kNsPerS));
}

std::unique_ptr<StageCollector> make_stage_collector(const WorkloadSection& workload) {
  const std::vector<ArrivalStage>& stages = workload.synthetic.stages;
  if (!workload.trace.empty() || stages.empty()) return nullptr;
  std::vector<double> rates;
  for (const ArrivalStage& stage : stages) rates.push_back(stage.rate_per_s);
  return std::make_unique<StageCollector>(stage_ends_ns(stages, workload.time_scale),
                                          std::move(rates));
}

Status finish_summary(const std::string& dir, std::chrono::steady_clock::time_point wall_start,
                      Summary* summary) {
  if (!dir.empty()) {
    KVSIM_RETURN_IF_ERROR(write_file_atomic(
        dir + "/summary.json", summary_to_json(*summary, /*with_wall=*/false).dump(2) + "\n"));
  }
  summary->wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return Status();
}

}  // namespace kvsim::sim
