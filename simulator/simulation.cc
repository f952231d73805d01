#include "simulator/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "core/base/data_dir.h"
#include "core/config/presets.h"
#include "core/config/yaml_io.h"
#include "simulator/run/cluster_run.h"
#include "simulator/run/engine_run.h"

namespace kvsim::sim {
namespace {

// A path given by the caller is relative to the working directory, not to the scenario.
std::string caller_path(const std::string& path) {
  if (path.rfind(kDataPrefix, 0) == 0) return path;
  return std::filesystem::absolute(path).lexically_normal().string();
}

// The scenario's own tree: the preset or file, or the YAML text given.
StatusOr<ConfigNode> base_tree(const ScenarioRequest& r) {
  if (r.scenario_yaml.empty()) return load_scenario_tree(r.scenario, {});
  KVSIM_ASSIGN_OR_RETURN(ConfigNode tree, parse_yaml(r.scenario_yaml, r.scenario));
  if (!tree.is_map()) return error_at(tree.mark(), "a scenario must be a map of fields");
  return tree;
}

// The scenario tree with the request's changes: a trace replaces a synthetic workload; the
// overrides come last, so they win.
StatusOr<ConfigNode> requested_tree(const ScenarioRequest& r) {
  KVSIM_ASSIGN_OR_RETURN(ConfigNode tree, base_tree(r));
  std::vector<std::string> overrides;
  if (!r.trace.empty()) {
    if (ConfigNode* workload = tree.find("workload"); workload != nullptr && workload->is_map()) {
      workload->erase("synthetic");
    }
    overrides.push_back("workload.trace=" + caller_path(r.trace));
  }
  if (!r.trace_format.empty()) overrides.push_back("workload.trace_format=" + r.trace_format);
  if (r.skip_bad_rows) overrides.push_back("workload.skip_bad_rows=true");
  if (r.seed) overrides.push_back(fmt::format("seed={}", *r.seed));
  if (!r.deployment.empty()) {
    for (const char* field : {"model", "device", "num_devices", "weight_dtype", "engine"}) {
      overrides.push_back(std::string(field) + "=null");
    }
    overrides.push_back("deployment=" + caller_path(r.deployment));
  }
  overrides.insert(overrides.end(), r.overrides.begin(), r.overrides.end());
  for (const std::string& assignment : overrides) {
    KVSIM_RETURN_IF_ERROR(apply_override(&tree, assignment));
  }
  return tree;
}

}  // namespace

StatusOr<Scenario> load_requested_scenario(const ScenarioRequest& request) {
  KVSIM_ASSIGN_OR_RETURN(ConfigNode tree, requested_tree(request));
  std::string base_dir;
  if (request.scenario_yaml.empty() && looks_like_path(request.scenario)) {
    base_dir = std::filesystem::path(request.scenario).parent_path().string();
    if (base_dir.empty()) base_dir = ".";
  }
  return scenario_from_config(tree, preset_stem(request.scenario), base_dir);
}

StatusOr<SimulationSetup> prepare_simulation(const Scenario& s) {
  SimulationSetup setup;
  if (!s.is_cluster()) {
    KVSIM_ASSIGN_OR_RETURN(static_cast<EngineSetup&>(setup), prepare_engine_setup(s));
    return setup;
  }
  KVSIM_ASSIGN_OR_RETURN(ClusterSetup cluster, prepare_cluster(s));
  // The engine fields are the first replica's; the scenario keeps its cluster sections.
  KVSIM_ASSIGN_OR_RETURN(static_cast<EngineSetup&>(setup),
                         prepare_engine_setup(replica_scenario(s, replica_groups(s).front())));
  setup.scenario = s;
  setup.engine = cluster.replicas.front().engine;
  setup.cluster = std::make_shared<const ClusterSetup>(std::move(cluster));
  return setup;
}

StatusOr<Summary> run_simulation(const SimulationSetup& setup, const RunOptions& options) {
  if (setup.cluster != nullptr) return run_cluster(setup, *setup.cluster, options);
  return run_engine(setup, options);
}

StatusOr<std::vector<ExplainedBatch>> explain_batches(const SimulationSetup& setup,
                                                      const std::vector<std::string>& specs) {
  return explain_engine_batches(
      setup, setup.cluster ? setup.cluster->replicas.front().parallel : setup.scenario.parallel,
      specs);
}

std::vector<std::string> typical_batches(const SimulationSetup& setup) {
  const uint64_t prompt = std::min<uint64_t>(2048, setup.engine.scheduler.max_num_batched_tokens);
  const uint64_t context = std::min<uint64_t>(2048, setup.model.max_position_embeddings / 2);
  const std::string prefill = "prefill:1x" + std::to_string(prompt);
  const std::string decodes = "decode:32x" + std::to_string(context);
  return {prefill, "decode:1x" + std::to_string(context), decodes, decodes + "," + prefill};
}

double price_per_hour_usd(const SimulationSetup& setup) {
  if (setup.cluster == nullptr) return setup.device.price_per_hour_usd * setup.scenario.num_devices;
  double total = 0;
  for (const ReplicaSetup& replica : setup.cluster->replicas) {
    if (!(replica.device.price_per_hour_usd > 0)) return 0;  // one unknown price: unknown
    total += replica.device.price_per_hour_usd * replica.num_devices;
  }
  return total;
}

}  // namespace kvsim::sim
