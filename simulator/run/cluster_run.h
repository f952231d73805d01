// run_cluster: a cluster scenario (Scenario::is_cluster) from its setup to the summary —
// run_simulation() (simulator/simulation.h) hands cluster setups here, so the CLI, sweeps and
// the GUI run clusters unchanged.
//
// Builds one cost model per replica (its device and TP group), the workload, the Cluster
// (simulator/cluster/cluster.h), the metrics and the files (when an output folder is given):
//   DIR/summary.json   the common summary over every replica plus the cluster's fields
//                      (simulator/cluster/cluster_summary.h); kv_usage_peak is the fullest
//                      replica's
//   DIR/requests.csv   with the cluster columns replica, prefill_replica, kv_transfer_s
//   DIR/replicas.csv, DIR/tiers.csv, DIR/transfers.csv   (simulator/cluster/cluster_writers.h)
//   the Chrome trace   one process per replica
// The same scenario and seed give byte-identical files.
#pragma once

#include "simulator/run/run_options.h"
#include "simulator/setup/cluster_setup.h"
#include "simulator/setup/engine_setup.h"

namespace kvsim::sim {

// `first` is the first replica's engine setup (the scenario and model of every replica).
StatusOr<Summary> run_cluster(const EngineSetup& first, const ClusterSetup& cluster,
                              const RunOptions& options);

}  // namespace kvsim::sim
