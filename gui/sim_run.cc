#include "gui/sim_run.h"

#include <algorithm>
#include <limits>

#include "core/config/yaml_io.h"
#include "simulator/output/request_latency.h"
#include "simulator/simulation.h"

namespace kvsim::gui {

const std::vector<double>& RunSeries::column(std::string_view name) const {
  if (name == "output_tokens_per_s") return output_tokens_per_s;
  const auto table = sim::timeseries_columns();
  const auto found = std::find_if(table.begin(), table.end(),
                                  [name](const auto& column) { return column.name == name; });
  KVSIM_CHECK(found != table.end(), "no time-series column named " + std::string(name));
  return columns[static_cast<size_t>(found - table.begin())];
}

void RunRecorder::on_row(const sim::SeriesRow& row) {
  const auto table = sim::timeseries_columns();
  for (size_t i = 0; i < table.size(); ++i) {
    const sim::TableColumn<sim::SeriesRow>& column = table[i];
    series_.columns[i].push_back(
        column.integer != nullptr
            ? static_cast<double>(column.integer(row))
            : column.number(row).value_or(std::numeric_limits<double>::quiet_NaN()));
  }
  series_.output_tokens_per_s.push_back(row.output_tokens_per_s);
}

void RunRecorder::on_request_finished(const sim::RequestRecord& r) {
  const sim::RequestLatency latency = sim::latency_of(r);
  ttft_s_.push_back(latency.ttft_s);
  if (latency.tpot_s) tpot_s_.push_back(*latency.tpot_s);
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
  RunRecorder recorder(sim::timeseries_interval_ns(scenario.output));
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
  KVSIM_ASSIGN_OR_RETURN(run.cost_bars, sim::explain_batches(setup, sim::typical_batches(setup)));
  return run;
}

}  // namespace kvsim::gui
