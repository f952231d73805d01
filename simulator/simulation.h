// Simulation: one scenario from configuration to summary — what the CLI, the tests, sweeps and
// the GUI call. prepare_simulation() resolves the presets and sizes everything; run_simulation()
// builds an Engine, attaches the metrics and writers and runs it.
//
// Sizing (the one place it happens for a run):
//   KV blocks     core/capacity.h's compute_capacity() for (model, device, cache dtype and
//                 quant group, weight dtype, block size, tp = num_devices, mem_fraction), the
//                 NZ padding of NZ devices included, so `kvsim capacity` with the same options
//                 prints the same num_blocks; cache.num_blocks_override replaces it
//   bytes/block   CapacityResult::kv_bytes_per_block (swap transfers, the cost model)
//   host tier     floor(host_swap_gib x 2^30 / bytes per block) blocks
//   retention     cache.retention; "full" on a sliding-window model (Mistral) becomes
//                 window:<its window>, as vLLM frees blocks outside the window
//   context       the model's max_position_embeddings
// Files (when an output folder is given): DIR/summary.json, DIR/requests.csv,
// DIR/timeseries.csv; the Chrome trace wherever it is asked for. A cluster scenario
// (Scenario::is_cluster) runs through simulator/setup/cluster_simulation.h instead.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/capacity.h"
#include "core/device_spec.h"
#include "core/model_spec.h"
#include "core/retention_policy.h"
#include "simulator/setup/cluster_setup.h"
#include "simulator/engine/engine.h"
#include "simulator/output/metrics.h"
#include "simulator/scenario/scenario.h"

namespace kvsim::sim {

struct SimulationSetup {
  Scenario scenario;
  ModelSpec model;
  DeviceSpec device;
  CapacityQuery capacity_query;  // what `kvsim capacity` would be asked
  CapacityResult capacity;
  EngineConfig engine;  // num_blocks from capacity (or the override)
  // A cluster scenario's replicas, routers, link and tiers (the fields above are then its
  // first replica's); null for one engine.
  std::shared_ptr<const ClusterSetup> cluster;
};

StatusOr<SimulationSetup> prepare_simulation(const Scenario& scenario);
// One engine's setup for the scenario, its cluster sections ignored (prepare_cluster sets up
// each replica with it).
StatusOr<SimulationSetup> prepare_engine_setup(const Scenario& scenario);

// The scenario's cost model: the calibration table when it names one, else the roofline.
StatusOr<std::unique_ptr<CostModel>> make_cost_model(const SimulationSetup& setup);
// The same for any device and TP group of the model (a cluster's replicas).
StatusOr<std::unique_ptr<CostModel>> make_cost_model(const CostModelConfig& config,
                                                     const ModelSpec& model,
                                                     const DeviceSpec& device,
                                                     const CapacityResult& capacity,
                                                     DType weight_dtype, uint32_t num_devices);

// The hourly price of the devices the scenario runs on (every replica's), 0 when unknown.
double price_per_hour_usd(const SimulationSetup& setup);

// The workload: a trace (streamed) or the synthetic generator, with max_requests, time_scale
// and the rate override applied. A trace's rate override reads the trace once first to learn
// its natural rate ((n - 1) / span of the arrivals), then scales arrivals by natural / rate.
StatusOr<std::unique_ptr<RequestSource>> make_request_source(const WorkloadSection& workload,
                                                             uint64_t seed);

// The natural arrival rate of a trace: (n - 1) / (last arrival - first arrival), read once.
StatusOr<double> trace_rate(const WorkloadSection& workload);

// The arrival rate a workload runs at, requests/s: the rate override, else the synthetic
// rate, else the trace's natural rate divided by time_scale.
StatusOr<double> workload_rate(const WorkloadSection& workload);

struct RunOptions {
  std::string out_dir;       // overrides output.dir; empty and no output.dir = no files
  std::string chrome_trace;  // overrides output.chrome_trace
  std::function<void(const Progress&)> progress;
  std::vector<SimObserver*> observers;  // more observers (the GUI's plots)
  const std::atomic<bool>* stop = nullptr;  // set: the run ends soon with a cancelled Status
};

// Runs the scenario to the end and returns the summary (files written when asked).
StatusOr<Summary> run_simulation(const SimulationSetup& setup, const RunOptions& options);

// The end of a run: DIR/summary.json written (when `dir` is set), then summary->wall_s set to
// the wall time since `wall_start` (shared by the lone engine's and the cluster's runs).
Status finish_summary(const std::string& dir, std::chrono::steady_clock::time_point wall_start,
                      Summary* summary);

}  // namespace kvsim::sim
