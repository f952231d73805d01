#include "simulator/run/cluster_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "simulator/cluster/cluster_summary.h"
#include "simulator/cluster/cluster_writers.h"
#include "simulator/cost/make_cost_model.h"
#include "simulator/output/chrome_trace_writer.h"
#include "simulator/output/requests_csv_writer.h"
#include "simulator/setup/workload_source.h"

namespace kvsim::sim {
namespace {

RunInfo cluster_run_info(const EngineSetup& setup, const ClusterSetup& cluster,
                         const std::string& cost_model) {
  const Scenario& s = setup.scenario;
  const ReplicaSetup& first = cluster.replicas.front();
  RunInfo info;
  info.scenario = s.name;
  info.model = setup.model.name;
  info.cost_model = cost_model;
  info.frontend_s = s.cost_model.frontend_s;
  info.seed = s.seed;
  info.num_devices = 0;
  info.block_size = first.capacity.block_size;
  info.kv_bytes_per_block = first.capacity.kv_bytes_per_block;
  for (const ReplicaSetup& replica : cluster.replicas) {
    if (info.device.find(replica.device.name) == std::string::npos) {
      info.device += (info.device.empty() ? "" : "+") + replica.device.name;
    }
    info.num_devices += replica.parallel.dp_rank_devices();  // a replica is one DP rank
    info.num_blocks += replica.engine.cache.num_blocks;
    info.num_usable_blocks += replica.engine.cache.num_usable_blocks();
  }
  return info;
}

// The files the scenario and the options ask for; the time series samples at each instant.
StatusOr<std::vector<std::unique_ptr<SimObserver>>> make_cluster_writers(const Scenario& s,
                                                                         const std::string& dir,
                                                                         const RunOptions& options,
                                                                         Cluster* cluster) {
  std::vector<std::unique_ptr<SimObserver>> writers;
  if (!dir.empty() && s.output.requests_csv) {
    KVSIM_ASSIGN_OR_RETURN(auto w, RequestsCsvWriter::create(dir + "/requests.csv", true));
    writers.push_back(std::move(w));
  }
  if (!dir.empty() && s.output.timeseries) {
    KVSIM_ASSIGN_OR_RETURN(
        auto w, ClusterTimeseriesWriter::create(dir, timeseries_interval_ns(s.output), cluster));
    ClusterTimeseriesWriter* sampler = w.get();
    cluster->set_row_interval(timeseries_interval_ns(s.output));
    cluster->add_instant_callback([sampler](int64_t now_ns) { sampler->on_instant(now_ns); });
    writers.push_back(std::move(w));
  }
  if (!dir.empty()) {
    KVSIM_ASSIGN_OR_RETURN(auto w, TransfersCsvWriter::create(dir + "/transfers.csv"));
    writers.push_back(std::move(w));
  }
  const std::string chrome = chrome_trace_path(s, options);
  if (!chrome.empty()) {
    std::vector<std::string> names;
    for (size_t r = 0; r < cluster->num_replicas(); ++r) {
      names.push_back(cluster->replica_config(r).name);
    }
    KVSIM_ASSIGN_OR_RETURN(auto w, ChromeTraceWriter::create(chrome, names));
    writers.push_back(std::move(w));
  }
  return writers;
}

}  // namespace

StatusOr<Summary> run_cluster(const EngineSetup& setup, const ClusterSetup& cluster_setup,
                              const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const Scenario& s = setup.scenario;
  std::vector<std::unique_ptr<CostModel>> cost_models;
  for (const ReplicaSetup& replica : cluster_setup.replicas) {
    KVSIM_ASSIGN_OR_RETURN(
        auto cost,
        make_cost_model(s.cost_model, setup.model, replica.device, replica.capacity,
                        setup.capacity_query.weight_dtype, replica.num_devices,
                        execution_profile(setup.engine_query, replica.device, replica.num_devices,
                                          setup.engine.scheduler.max_num_seqs),
                        replica.parallel));
    cost_models.push_back(std::move(cost));
  }
  const RunInfo info = cluster_run_info(setup, cluster_setup, cost_models.front()->name());
  KVSIM_ASSIGN_OR_RETURN(auto source, make_request_source(s.workload, s.seed));
  ClusterConfig config = cluster_config(cluster_setup);
  config.progress_every_events = setup.engine.progress_every_events;
  config.threads =
      options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  KVSIM_ASSIGN_OR_RETURN(auto cluster,
                         Cluster::create(config, std::move(cost_models), std::move(source)));
  MetricsCollector metrics;
  cluster->add_observer(&metrics);
  const std::unique_ptr<StageCollector> stages = make_stage_collector(s.workload);
  if (stages != nullptr) cluster->add_observer(stages.get());
  const std::string dir = output_dir(s, options);
  KVSIM_ASSIGN_OR_RETURN(auto writers, make_cluster_writers(s, dir, options, cluster.get()));
  for (auto& writer : writers) cluster->add_observer(writer.get());
  for (SimObserver* observer : options.observers) cluster->add_observer(observer);
  if (options.progress) cluster->set_progress_callback(options.progress);
  cluster->set_stop_flag(options.stop);
  KVSIM_RETURN_IF_ERROR(cluster->run());

  Summary summary = metrics.build(info, merged_engine_stats(*cluster), cluster->workload_stats());
  auto cluster_summary = std::make_shared<ClusterSummary>(summarize_cluster(*cluster));
  summary.kv_usage_peak = 0;
  summary.busy_fraction = 0;  // the merged stats sum every replica's busy time
  for (const ReplicaSummary& replica : cluster_summary->replicas) {
    summary.kv_usage_peak = std::max(summary.kv_usage_peak, replica.kv_usage_peak);
    summary.busy_fraction = std::max(summary.busy_fraction, replica.busy_fraction);
  }
  summary.extension = std::move(cluster_summary);
  if (stages != nullptr) summary.stages = stages->build();
  KVSIM_RETURN_IF_ERROR(finish_summary(dir, wall_start, &summary));
  return summary;
}

}  // namespace kvsim::sim
