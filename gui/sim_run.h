// One simulation run as the Simulation view keeps it: the scenario as run (YAML), the summary
// run_simulation() returned, the time series and the per-request latencies recorded by a
// SimObserver while it ran. Qt-free; runs on the JobRunner's worker thread.
//
// The series are the engine's series that timeseries.csv writes (the same sampler,
// simulator/output/interval_sampler.h): row k stands for time k x interval; tokens_per_s and
// output_tokens_per_s count the iterations that ended in the row's interval. The latencies are
// those of the summary (simulator/output/request_latency.h), sorted; finished requests only,
// TPOT for requests with at least two output tokens.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/config/config_node.h"
#include "simulator/output/interval_sampler.h"
#include "simulator/output/metrics.h"
#include "simulator/output/table_columns.h"
#include "simulator/scenario/scenario.h"
#include "simulator/simulation.h"

namespace kvsim::gui {

// The series of one run: timeseries.csv's columns, taken from the table the writer iterates
// (sim::timeseries_columns(), simulator/output/table_columns.h), in its order and under its
// names, as doubles; and output_tokens_per_s, which the file does not have.
struct RunSeries {
  std::vector<std::vector<double>> columns =
      std::vector<std::vector<double>>(sim::timeseries_columns().size());
  std::vector<double> output_tokens_per_s;

  // The series named `name`: a column of sim::timeseries_columns() or "output_tokens_per_s"
  // (checked: another name is a bug).
  const std::vector<double>& column(std::string_view name) const;
  const std::vector<double>& time_s() const { return column("time_s"); }
};

// Records RunSeries rows every `interval_ns` of simulated time (the engine's series,
// simulator/output/interval_sampler.h) and the latencies (simulator/output/request_latency.h).
class RunRecorder final : public sim::EngineSeries {
 public:
  explicit RunRecorder(int64_t interval_ns) : EngineSeries(interval_ns) {}

  void on_request_finished(const sim::RequestRecord& request) override;

  // Moves the results out (call once, after the run).
  RunSeries take_series() { return std::move(series_); }
  std::vector<double> take_sorted_ttft_s();
  std::vector<double> take_sorted_tpot_s();

 private:
  void on_row(const sim::SeriesRow& row) override;

  RunSeries series_;
  std::vector<double> ttft_s_;
  std::vector<double> tpot_s_;
};

struct SimRun {
  std::string label;          // "run 3: default (llama3-8b on h100-sxm)"
  std::string scenario_yaml;  // to_yaml() of the tree that was run
  sim::Summary summary;       // as run_simulation() returned it
  RunSeries series;
  std::vector<double> ttft_s;  // sorted ascending
  std::vector<double> tpot_s;  // sorted ascending
  // Typical batches explained by the scenario's cost model (gui/cost_plots.h).
  std::vector<sim::ExplainedBatch> cost_bars;
};

// The empirical CDF of n sorted values: (i + 1) / n for i in [0, n).
std::vector<double> empirical_cdf(size_t n);

// The summary as the CLI's summary.json has it, flattened to dotted keys
// (simulator/output/metrics.h summary_to_json + flatten_json), each value as JSON text.
std::vector<std::pair<std::string, std::string>> summary_fields(const sim::Summary& summary);

// Builds the scenario from `tree` (name, base_dir as scenario_from_config), runs it with no
// files written, and records everything. `progress` gets the share of the workload done;
// `stop`, when set during the run, ends it soon with a cancelled Status.
StatusOr<SimRun> run_scenario(const ConfigNode& tree, const std::string& name,
                              const std::string& base_dir,
                              const std::function<void(double)>& progress,
                              const std::atomic<bool>* stop);

}  // namespace kvsim::gui
