#include "simulator/simulation.h"

#include "simulator/run/cluster_run.h"
#include "simulator/run/engine_run.h"

namespace kvsim::sim {

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
