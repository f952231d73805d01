#include "simulator/simulation.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include "core/preset_loader.h"
#include "core/presets.h"
#include "simulator/io/atomic_file.h"
#include "simulator/cost/calibration_table.h"
#include "simulator/output/chrome_trace_writer.h"
#include "simulator/setup/cluster_simulation.h"
#include "simulator/output/requests_csv_writer.h"
#include "simulator/output/timeseries_writer.h"
#include "simulator/workload/trace_source.h"

namespace kvsim::sim {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

StatusOr<ModelSpec> resolve_model(const ConfigNode& node) {
  if (node.is_map()) return model_from_config(node, "inline-model");
  return load_model(node.text());
}

StatusOr<DeviceSpec> resolve_device(const ConfigNode& node) {
  if (node.is_map()) return device_from_config(node, "inline-device");
  return load_device(node.text());
}

StatusOr<std::shared_ptr<const RetentionPolicy>> resolve_retention(const Scenario& s,
                                                                   const ModelSpec& model) {
  std::string spec = s.cache.retention;
  if (spec == "full" && model.sliding_window_tokens > 0) {
    spec = "window:" + std::to_string(model.sliding_window_tokens);
  }
  KVSIM_ASSIGN_OR_RETURN(std::unique_ptr<RetentionPolicy> policy, make_retention_policy(spec));
  return std::shared_ptr<const RetentionPolicy>(std::move(policy));
}

Status fill_engine_config(const Scenario& s, const SimulationSetup& setup, EngineConfig* e) {
  const CapacityResult& capacity = setup.capacity;
  uint64_t num_blocks = s.cache.num_blocks_override;
  if (num_blocks == 0) {
    if (!capacity.num_blocks || *capacity.num_blocks == 0) {
      return Status::invalid_argument(
          "no KV block fits: '" + setup.model.name + "' on " + std::to_string(s.num_devices) +
          " x '" + setup.device.name +
          "' leaves no memory for the KV cache (weights + "
          "activation reserve exceed memory x mem_fraction); raise num_devices or mem_fraction");
    }
    num_blocks = *capacity.num_blocks;
  }
  if (num_blocks > kMaxNumBlocks) {
    return Status::invalid_argument("the pool of " + std::to_string(num_blocks) +
                                    " blocks is larger than the cache manager's limit; raise "
                                    "cache.block_size");
  }
  e->cache.num_blocks = static_cast<uint32_t>(num_blocks);
  e->cache.block_size = capacity.block_size;
  e->cache.eviction = s.cache.prefix_caching ? s.cache.eviction : "none";
  e->cache.bytes_per_block = capacity.kv_bytes_per_block;
  const double host_blocks =
      std::floor(s.cache.host_swap_gib * kGiB / static_cast<double>(capacity.kv_bytes_per_block));
  e->cache.num_host_blocks = static_cast<uint32_t>(
      std::min(host_blocks, static_cast<double>(std::numeric_limits<uint32_t>::max())));
  KVSIM_ASSIGN_OR_RETURN(auto retention, resolve_retention(s, setup.model));
  SchedulerLimits& limits = e->scheduler;
  limits.max_num_seqs = s.scheduler.max_num_seqs;
  limits.max_num_batched_tokens = s.scheduler.max_num_batched_tokens;
  limits.chunked_prefill = s.scheduler.chunked_prefill;
  limits.preemption = s.scheduler.preemption;
  limits.prefix_caching = s.cache.prefix_caching;
  if (const auto window = retention->window_tokens()) {
    limits.attention_sink_tokens = retention->sink_tokens();
    limits.attention_window_tokens = *window;
    e->cache.retention = std::move(retention);  // "full" stays null: nothing to trim
  }
  e->max_model_len = setup.model.max_position_embeddings;
  e->host_link_bytes_per_s = setup.device.host_link_gbps * 1e9;
  return Status::ok();
}

// The file writers the scenario and the options ask for.
StatusOr<std::vector<std::unique_ptr<SimObserver>>> make_writers(const Scenario& s,
                                                                 const std::string& dir,
                                                                 const RunOptions& options) {
  std::vector<std::unique_ptr<SimObserver>> writers;
  if (!dir.empty() && s.output.requests_csv) {
    KVSIM_ASSIGN_OR_RETURN(auto w, RequestsCsvWriter::create(dir + "/requests.csv"));
    writers.push_back(std::move(w));
  }
  if (!dir.empty() && s.output.timeseries) {
    const int64_t interval_ns =
        std::max<int64_t>(1, std::llround(s.output.timeseries_interval_s * 1e9));
    KVSIM_ASSIGN_OR_RETURN(auto w, TimeseriesWriter::create(dir + "/timeseries.csv", interval_ns));
    writers.push_back(std::move(w));
  }
  const std::string chrome =
      !options.chrome_trace.empty() ? options.chrome_trace : s.output.chrome_trace;
  if (!chrome.empty()) {
    KVSIM_ASSIGN_OR_RETURN(auto w, ChromeTraceWriter::create(chrome));
    writers.push_back(std::move(w));
  }
  return writers;
}

}  // namespace

StatusOr<SimulationSetup> prepare_simulation(const Scenario& s) {
  if (!s.is_cluster()) return prepare_engine_setup(s);
  KVSIM_ASSIGN_OR_RETURN(ClusterSetup cluster, prepare_cluster(s));
  // The engine fields are the first replica's; the scenario keeps its cluster sections.
  KVSIM_ASSIGN_OR_RETURN(SimulationSetup setup,
                         prepare_engine_setup(replica_scenario(s, replica_groups(s).front())));
  setup.scenario = s;
  setup.engine = cluster.replicas.front().engine;
  setup.cluster = std::make_shared<const ClusterSetup>(std::move(cluster));
  return setup;
}

StatusOr<SimulationSetup> prepare_engine_setup(const Scenario& s) {
  SimulationSetup setup;
  setup.scenario = s;
  KVSIM_ASSIGN_OR_RETURN(setup.model, resolve_model(s.model));
  KVSIM_ASSIGN_OR_RETURN(setup.device, resolve_device(s.device));
  if (setup.model.num_params == 0) {
    return Status::invalid_argument("model '" + setup.model.name +
                                    "' has no num_params: the simulator needs the weights' size");
  }
  if (s.num_devices > 1 && !(setup.device.interconnect_gbps > 0)) {
    return Status::invalid_argument("num_devices > 1 needs the device's interconnect_gbps");
  }
  CapacityQuery& q = setup.capacity_query;
  q.kv.dtype = s.cache.dtype;
  q.kv.quant_group = s.cache.quant_group;
  q.weight_dtype = s.weight_dtype;
  q.block_size = s.cache.block_size;
  q.tp = s.num_devices;
  q.mem_fraction = s.cache.mem_fraction;
  KVSIM_ASSIGN_OR_RETURN(setup.capacity, compute_capacity(setup.model, &setup.device, q));
  KVSIM_RETURN_IF_ERROR(fill_engine_config(s, setup, &setup.engine));
  return setup;
}

StatusOr<std::unique_ptr<CostModel>> make_cost_model(const SimulationSetup& setup) {
  return make_cost_model(setup.scenario.cost_model, setup.model, setup.device, setup.capacity,
                         setup.scenario.weight_dtype, setup.scenario.num_devices);
}

StatusOr<std::unique_ptr<CostModel>> make_cost_model(const CostModelConfig& config,
                                                     const ModelSpec& model,
                                                     const DeviceSpec& device,
                                                     const CapacityResult& capacity,
                                                     DType weight_dtype, uint32_t num_devices) {
  if (!config.calibration.empty()) {
    KVSIM_ASSIGN_OR_RETURN(auto table, CalibratedCostModel::load(config.calibration));
    return std::unique_ptr<CostModel>(std::move(table));
  }
  const RooflineInputs inputs = roofline_inputs(model, device, capacity, weight_dtype, num_devices);
  return std::unique_ptr<CostModel>(new RooflineCostModel(inputs, config));
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

StatusOr<std::unique_ptr<RequestSource>> make_request_source(const WorkloadSection& w,
                                                             uint64_t seed) {
  if (w.trace.empty()) {
    SyntheticConfig config = w.synthetic;
    if (w.rate > 0) config.rate_per_s = w.rate;
    if (w.max_requests > 0) config.num_requests = std::min(config.num_requests, w.max_requests);
    const double time_scale = w.rate > 0 ? 1.0 : w.time_scale;
    KVSIM_ASSIGN_OR_RETURN(auto source, SyntheticSource::create(config, seed, time_scale));
    return std::unique_ptr<RequestSource>(std::move(source));
  }
  TraceSourceOptions options;
  options.time_scale = w.time_scale;
  options.max_requests = w.max_requests;
  options.skip_bad_rows = w.skip_bad_rows;
  options.default_prefix_tokens = w.prefix_tokens;
  if (w.rate > 0) {
    KVSIM_ASSIGN_OR_RETURN(const double natural, trace_rate(w));
    options.time_scale = natural / w.rate;
  }
  return open_trace_source(w.trace, w.trace_format, options);
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

StatusOr<Summary> run_simulation(const SimulationSetup& setup, const RunOptions& options) {
  if (setup.cluster != nullptr) return run_cluster_simulation(setup, options);
  const auto wall_start = std::chrono::steady_clock::now();
  const Scenario& s = setup.scenario;
  KVSIM_ASSIGN_OR_RETURN(auto cost_model, make_cost_model(setup));
  RunInfo info{s.name,
               setup.model.name,
               setup.device.name,
               cost_model->name(),
               s.seed,
               s.num_devices,
               setup.capacity.block_size,
               setup.engine.cache.num_blocks,
               setup.capacity.kv_bytes_per_block};
  KVSIM_ASSIGN_OR_RETURN(auto source, make_request_source(s.workload, s.seed));
  KVSIM_ASSIGN_OR_RETURN(auto engine,
                         Engine::create(setup.engine, std::move(cost_model), std::move(source)));
  MetricsCollector metrics;
  engine->add_observer(&metrics);
  const std::string dir = !options.out_dir.empty() ? options.out_dir : s.output.dir;
  KVSIM_ASSIGN_OR_RETURN(auto writers, make_writers(s, dir, options));
  for (auto& writer : writers) engine->add_observer(writer.get());
  for (SimObserver* observer : options.observers) engine->add_observer(observer);
  if (options.progress) engine->set_progress_callback(options.progress);
  engine->set_stop_flag(options.stop);
  KVSIM_RETURN_IF_ERROR(engine->run());
  Summary summary = metrics.build(info, engine->stats(), engine->workload_stats());
  KVSIM_RETURN_IF_ERROR(finish_summary(dir, wall_start, &summary));
  return summary;
}

StatusOr<double> trace_rate(const WorkloadSection& w) {
  TraceSourceOptions options;
  options.max_requests = w.max_requests;
  options.skip_bad_rows = w.skip_bad_rows;
  KVSIM_ASSIGN_OR_RETURN(auto source, open_trace_source(w.trace, w.trace_format, options));
  RequestSpec request;
  uint64_t count = 0;
  int64_t last_ns = 0;
  for (;;) {
    KVSIM_ASSIGN_OR_RETURN(const bool more, source->next(&request));
    if (!more) break;
    ++count;
    last_ns = request.arrival_ns;
  }
  if (count < 2 || last_ns == 0) {
    return Status::invalid_argument(w.trace +
                                    ": workload.rate needs a trace with arrivals "
                                    "spread over time (at least two distinct timestamps)");
  }
  return static_cast<double>(count - 1) / (static_cast<double>(last_ns) / 1e9);
}

StatusOr<double> workload_rate(const WorkloadSection& w) {
  if (w.rate > 0) return w.rate;
  if (w.trace.empty()) return w.synthetic.rate_per_s;
  KVSIM_ASSIGN_OR_RETURN(const double natural, trace_rate(w));
  return natural / w.time_scale;
}

}  // namespace kvsim::sim
