#include "gui/sim_run.h"

#include <algorithm>

#include "core/yaml_io.h"
#include "simulator/simulation.h"

namespace kvsim::gui {
namespace {

constexpr double kNsPerS = 1e9;

double seconds(int64_t ns) { return static_cast<double>(ns) / kNsPerS; }

}  // namespace

RunRecorder::RunRecorder(int64_t interval_ns)
    : interval_ns_(interval_ns), next_row_ns_(interval_ns) {
  KVSIM_CHECK(interval_ns > 0, "time-series interval must be positive");
}

void RunRecorder::emit_rows_until(int64_t time_ns, bool inclusive) {
  const double interval_s = seconds(interval_ns_);
  while (next_row_ns_ < time_ns || (inclusive && next_row_ns_ == time_ns)) {
    series_.time_s.push_back(seconds(next_row_ns_));
    series_.kv_blocks_used.push_back(state_.kv_blocks_used);
    series_.kv_blocks_cached_free.push_back(state_.kv_blocks_cached_free);
    series_.kv_blocks_free.push_back(state_.kv_blocks_free);
    series_.running.push_back(state_.running);
    series_.waiting.push_back(state_.waiting);
    series_.swapped.push_back(state_.swapped);
    series_.tokens_per_s.push_back(static_cast<double>(window_tokens_) / interval_s);
    series_.output_tokens_per_s.push_back(static_cast<double>(window_output_tokens_) / interval_s);
    window_tokens_ = 0;
    window_output_tokens_ = 0;
    next_row_ns_ += interval_ns_;
  }
}

void RunRecorder::on_iteration(const sim::IterationRecord& iteration,
                               const sim::EngineSnapshot& after) {
  emit_rows_until(iteration.end_ns, /*inclusive=*/false);
  window_tokens_ += iteration.shape.new_tokens;
  window_output_tokens_ += iteration.output_tokens;
  state_ = after;
}

void RunRecorder::on_request_finished(const sim::RequestRecord& r) {
  ttft_s_.push_back(seconds(r.first_token_ns - r.arrival_ns));
  if (r.output_tokens > 1) {
    tpot_s_.push_back(seconds(r.finish_ns - r.first_token_ns) / (r.output_tokens - 1));
  }
}

Status RunRecorder::finish(const sim::EngineSnapshot& last) {
  state_ = last;
  emit_rows_until(last.time_ns, /*inclusive=*/true);
  // The partial last window, so the run's end is visible (as timeseries.csv).
  if (window_tokens_ > 0) emit_rows_until(next_row_ns_, /*inclusive=*/true);
  return Status::ok();
}

std::vector<double> RunRecorder::take_sorted_ttft_s() {
  std::sort(ttft_s_.begin(), ttft_s_.end());
  return std::move(ttft_s_);
}

std::vector<double> RunRecorder::take_sorted_tpot_s() {
  std::sort(tpot_s_.begin(), tpot_s_.end());
  return std::move(tpot_s_);
}

std::vector<double> empirical_cdf(size_t n) {
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<double>(i + 1) / static_cast<double>(n);
  return out;
}

std::vector<std::pair<std::string, std::string>> summary_fields(const sim::Summary& summary) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : sim::flatten_json(sim::summary_to_json(summary, false))) {
    out.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

StatusOr<SimRun> run_scenario(const ConfigNode& tree, const std::string& name,
                              const std::string& base_dir,
                              const std::function<void(double)>& progress,
                              const std::atomic<bool>* stop) {
  KVSIM_ASSIGN_OR_RETURN(sim::Scenario scenario, sim::scenario_from_config(tree, name, base_dir));
  scenario.output.dir.clear();  // the GUI keeps everything in memory
  scenario.output.chrome_trace.clear();
  KVSIM_ASSIGN_OR_RETURN(sim::SimulationSetup setup, sim::prepare_simulation(scenario));
  const auto interval_ns = static_cast<int64_t>(scenario.output.timeseries_interval_s * kNsPerS);
  RunRecorder recorder(std::max<int64_t>(1, interval_ns));
  sim::RunOptions options;
  options.observers.push_back(&recorder);
  options.stop = stop;
  if (progress) options.progress = [&progress](const sim::Progress& p) { progress(p.fraction); };
  SimRun run;
  KVSIM_ASSIGN_OR_RETURN(run.summary, sim::run_simulation(setup, options));
  run.scenario_yaml = to_yaml(tree);
  run.series = recorder.take_series();
  run.ttft_s = recorder.take_sorted_ttft_s();
  run.tpot_s = recorder.take_sorted_tpot_s();
  return run;
}

}  // namespace kvsim::gui
