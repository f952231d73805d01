#include "simulator/run/engine_run.h"

#include <memory>
#include <vector>

#include "simulator/cost/make_cost_model.h"
#include "simulator/output/chrome_trace_writer.h"
#include "simulator/output/requests_csv_writer.h"
#include "simulator/output/timeseries_writer.h"
#include "simulator/setup/workload_source.h"

namespace kvsim::sim {
namespace {

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
    KVSIM_ASSIGN_OR_RETURN(auto w, TimeseriesWriter::create(dir + "/timeseries.csv",
                                                            timeseries_interval_ns(s.output)));
    writers.push_back(std::move(w));
  }
  const std::string chrome = chrome_trace_path(s, options);
  if (!chrome.empty()) {
    KVSIM_ASSIGN_OR_RETURN(auto w, ChromeTraceWriter::create(chrome));
    writers.push_back(std::move(w));
  }
  return writers;
}

}  // namespace

StatusOr<Summary> run_engine(const EngineSetup& setup, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const Scenario& s = setup.scenario;
  KVSIM_ASSIGN_OR_RETURN(auto cost_model,
                         make_cost_model(s.cost_model, setup.model, setup.device,
                                         setup.cost_capacity(), setup.capacity_query.weight_dtype,
                                         s.num_devices, setup.execution, s.parallel));
  RunInfo info{s.name,
               setup.model.name,
               setup.device.name,
               cost_model->name(),
               s.seed,
               s.num_devices,
               setup.capacity.block_size,
               setup.engine.cache.num_blocks,
               setup.capacity.kv_bytes_per_block,
               setup.engine.cache.num_usable_blocks(),
               s.cost_model.frontend_s};
  KVSIM_ASSIGN_OR_RETURN(auto source, make_request_source(s.workload, s.seed));
  KVSIM_ASSIGN_OR_RETURN(auto engine,
                         Engine::create(setup.engine, std::move(cost_model), std::move(source)));
  if (setup.draft_model && s.speculative.config.runs_draft_model()) {
    KVSIM_ASSIGN_OR_RETURN(auto draft_cost,
                           make_cost_model(s.cost_model, *setup.draft_model, setup.device,
                                           *setup.draft_capacity, setup.capacity_query.weight_dtype,
                                           s.num_devices, setup.execution, s.parallel));
    engine->set_draft_cost_model(std::move(draft_cost));
  }
  MetricsCollector metrics;
  engine->add_observer(&metrics);
  const std::unique_ptr<StageCollector> stages = make_stage_collector(s.workload);
  if (stages != nullptr) engine->add_observer(stages.get());
  const std::string dir = output_dir(s, options);
  KVSIM_ASSIGN_OR_RETURN(auto writers, make_writers(s, dir, options));
  for (auto& writer : writers) engine->add_observer(writer.get());
  for (SimObserver* observer : options.observers) engine->add_observer(observer);
  if (options.progress) engine->set_progress_callback(options.progress);
  engine->set_stop_flag(options.stop);
  KVSIM_RETURN_IF_ERROR(engine->run());
  Summary summary = metrics.build(info, engine->stats(), engine->workload_stats());
  if (stages != nullptr) summary.stages = stages->build();
  KVSIM_RETURN_IF_ERROR(finish_summary(dir, wall_start, &summary));
  return summary;
}

}  // namespace kvsim::sim
