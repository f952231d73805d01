// Simulation: the façade over the simulator's layers — one scenario from configuration to
// summary, what the CLI, sweeps, the GUI and the tests call:
//
//   Scenario (simulator/scenario/)  --prepare_simulation-->  SimulationSetup
//     one engine:  simulator/setup/engine_setup.h   (presets resolved, the KV pool sized)
//     a cluster:   simulator/setup/cluster_setup.h  (each replica set up as one engine)
//   SimulationSetup  --run_simulation-->  Summary (and files)
//     one engine:  simulator/run/engine_run.h
//     a cluster:   simulator/run/cluster_run.h
//
// Files (when an output folder is given): DIR/summary.json, DIR/requests.csv,
// DIR/timeseries.csv (a cluster: replicas.csv, tiers.csv, transfers.csv instead of
// timeseries.csv); the Chrome trace wherever it is asked for.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "simulator/run/explain_batches.h"
#include "simulator/run/run_options.h"
#include "simulator/setup/cluster_setup.h"
#include "simulator/setup/engine_setup.h"

namespace kvsim::sim {

// The fields of EngineSetup are the lone engine's, or a cluster's first replica's.
struct SimulationSetup : EngineSetup {
  // A cluster scenario's replicas, routers, link and tiers; null for one engine.
  std::shared_ptr<const ClusterSetup> cluster;
};

// What a front end asks to simulate (`kvsim simulate`, `kvsim.simulate()` in python/): a
// scenario preset or YAML file and the changes asked on top of it.
struct ScenarioRequest {
  std::string scenario;  // preset name (`kvsim presets`) or YAML path
  // A scenario given as YAML text instead (a Python dict, as JSON): `scenario` then only names
  // it in messages and is its default name; relative paths in it resolve against the working
  // directory.
  std::string scenario_yaml;
  std::string trace;             // a trace file replacing the workload; "" = the scenario's
  std::string trace_format;      // auto, mooncake, azure, burstgpt, csv; "" = the scenario's
  bool skip_bad_rows = false;    // skip (and count) malformed trace rows
  std::optional<uint64_t> seed;  // the workload's seed; empty = the scenario's
  // A deployment file (`kvsim calibrate --from-log ... -o`): it replaces the scenario's model,
  // device, num_devices, weight_dtype and engine, and its measured figures size the pool.
  std::string deployment;
  std::vector<std::string> overrides;  // "dotted.key=value", applied last (they win)
};

// The typed scenario of a request. Paths given in the request (the scenario file, the trace)
// are relative to the working directory; paths inside the scenario file to its folder.
StatusOr<Scenario> load_requested_scenario(const ScenarioRequest& request);

StatusOr<SimulationSetup> prepare_simulation(const Scenario& scenario);

// Runs the scenario to the end and returns the summary (files written when asked).
StatusOr<Summary> run_simulation(const SimulationSetup& setup, const RunOptions& options);

// One batch's iteration as the scenario's cost model explains it (the first replica's in a
// cluster): the GUI's cost bars; `kvsim cost` prints the same for a model and device.
StatusOr<std::vector<ExplainedBatch>> explain_batches(const SimulationSetup& setup,
                                                      const std::vector<std::string>& specs);
// Batches that show where a scenario's time goes: a prefill of min(2048, token budget) tokens,
// one decode, 32 decodes and the two together, at 2048 cached tokens (capped by the model's
// length).
std::vector<std::string> typical_batches(const SimulationSetup& setup);

// The hourly price of the devices the scenario runs on (every replica's), 0 when unknown.
double price_per_hour_usd(const SimulationSetup& setup);

}  // namespace kvsim::sim
