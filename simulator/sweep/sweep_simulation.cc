#include "simulator/sweep/sweep_simulation.h"

#include "core/base/text_format.h"
#include "simulator/setup/workload_source.h"
#include "simulator/simulation.h"
#include "simulator/sweep/slo_search.h"

namespace kvsim::sim {
namespace {

namespace fs = std::filesystem;

StatusOr<SimulationSetup> setup_point(const ConfigNode& config, const std::string& name,
                                      const std::string& base_dir) {
  KVSIM_ASSIGN_OR_RETURN(Scenario scenario, scenario_from_config(config, name, base_dir));
  return prepare_simulation(scenario);
}

StatusOr<FlatMetrics> simulate(const SimulationSetup& setup, const fs::path& out_dir) {
  RunOptions options;
  options.out_dir = out_dir.string();
  options.threads = 1;  // the sweep runs its points in parallel, one core each
  KVSIM_ASSIGN_OR_RETURN(Summary summary, run_simulation(setup, options));
  return flat_summary_metrics(summary);
}

// The configuration at `rate` requests/s, with no files of its own.
ConfigNode at_rate(const ConfigNode& config, double rate) {
  ConfigNode probe = config;
  (void)probe.set_path("workload.rate", ConfigNode::scalar(format_number(rate)));
  if (ConfigNode* output = probe.find("output")) output->erase("dir");
  return probe;
}

void add_slo_metrics(const SloSearchResult& search, double start_rate, const SimulationSetup& setup,
                     FlatMetrics* metrics) {
  (*metrics)["slo.found"] = search.found ? 1 : 0;
  (*metrics)["slo.max_rate_per_s"] = search.load_factor * start_rate;
  (*metrics)["slo.failing_rate_per_s"] = search.failing_factor * start_rate;
  (*metrics)["slo.evaluations"] = search.evaluations;
  uint32_t num_devices = setup.scenario.num_devices;
  if (setup.cluster != nullptr) {
    num_devices = 0;
    for (const ReplicaSetup& replica : setup.cluster->replicas) num_devices += replica.num_devices;
  }
  (*metrics)["slo.num_devices"] = num_devices;
  const double dollars_per_s = price_per_hour_usd(setup) / 3600.0;
  const auto per_million = [&](const char* tokens_key) {
    const auto tokens = metrics->find(tokens_key);
    return tokens == metrics->end() || tokens->second <= 0 ? 0.0
                                                           : dollars_per_s / tokens->second * 1e6;
  };
  if (dollars_per_s > 0 && search.found) {
    (*metrics)["slo.cost_per_million_output_tokens_usd"] = per_million("output_tokens_per_s");
    (*metrics)["slo.cost_per_million_tokens_usd"] = per_million("total_tokens_per_s");
  }
}

PointOutcome run_slo_point(const SloSpec& slo, const std::string& base_dir, const SweepPoint& point,
                           const fs::path& dir) {
  PointOutcome outcome;
  auto setup = setup_point(point.config, point.name, base_dir);
  if (!setup.is_ok()) return {setup.status(), {}};
  auto own_rate = workload_rate(setup->scenario.workload);
  if (!own_rate.is_ok()) return {own_rate.status(), {}};
  const double start_rate = slo.start_rate_per_s > 0 ? slo.start_rate_per_s : *own_rate;
  const LoadRunner run_at = [&](double load) -> StatusOr<FlatMetrics> {
    KVSIM_ASSIGN_OR_RETURN(
        SimulationSetup probe,
        setup_point(at_rate(point.config, start_rate * load), point.name, base_dir));
    return simulate(probe, "");
  };
  auto search = search_max_load(run_at, slo);
  if (!search.is_ok()) return {search.status(), {}};
  if (search->found) {  // the files of the answer, in the point's folder
    auto best =
        setup_point(at_rate(point.config, start_rate * search->load_factor), point.name, base_dir);
    if (!best.is_ok()) return {best.status(), {}};
    auto metrics = simulate(*best, dir);
    if (!metrics.is_ok()) return {metrics.status(), {}};
    outcome.metrics = std::move(*metrics);
  }
  add_slo_metrics(*search, start_rate, *setup, &outcome.metrics);
  outcome.binding = search->binding;
  return outcome;
}

}  // namespace

FlatMetrics flat_summary_metrics(const Summary& summary) {
  FlatMetrics metrics;
  for (const auto& [key, value] : flatten_json(summary_to_json(summary, false))) {
    if (value.is_number()) metrics[key] = value.get<double>();
    if (value.is_boolean()) metrics[key] = value.get<bool>() ? 1 : 0;
  }
  return metrics;
}

StatusOr<PointRunner> make_simulation_point_runner(const SweepSpec& spec) {
  const std::string base_dir = spec.base_dir;
  if (!spec.slo.is_null()) {
    KVSIM_ASSIGN_OR_RETURN(SloSpec slo, slo_from_config(spec.slo));
    return PointRunner([slo, base_dir](const SweepPoint& point, const fs::path& dir) {
      return run_slo_point(slo, base_dir, point, dir);
    });
  }
  return PointRunner([base_dir](const SweepPoint& point, const fs::path& dir) -> PointOutcome {
    auto setup = setup_point(point.config, point.name, base_dir);
    if (!setup.is_ok()) return {setup.status(), {}};
    auto metrics = simulate(*setup, dir);
    if (!metrics.is_ok()) return {metrics.status(), {}};
    return {Status::ok(), std::move(*metrics)};
  });
}

}  // namespace kvsim::sim
