// kvsim calibrate --from-bench (cli/calibrate_bench.h): open each run, then compare or fit.
#include "cli/calibrate_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/base/text_format.h"
#include "simulator/cost/calibration_file.h"
#include "simulator/cost/make_cost_model.h"
#include "simulator/io/atomic_file.h"
#include "simulator/sweep/bench_fit.h"

namespace kvsim::cli {
namespace {

using Runs = std::vector<std::unique_ptr<sim::BenchReplay>>;

// The scenario with the shared flags as overrides, the user's last.
sim::ScenarioRequest scenario_request(const CalibrateSharedOptions& shared,
                                      const CalibrateBenchOptions& o) {
  sim::ScenarioRequest request;
  request.scenario = o.scenario;
  auto& set = request.overrides;
  if (!shared.model.model.empty()) set.push_back("model=" + shared.model.model);
  if (!shared.device.empty()) set.push_back("device=" + shared.device);
  if (shared.tp) set.push_back(fmt::format("num_devices={}", *shared.tp));
  if (!shared.weight_dtype.empty()) set.push_back("weight_dtype=" + shared.weight_dtype);
  if (!shared.kv_dtype.empty()) set.push_back("cache.dtype=" + shared.kv_dtype);
  set.insert(set.end(), o.overrides.begin(), o.overrides.end());
  return request;
}

double error_of(double simulated, double measured) {
  return measured != 0 ? (simulated - measured) / measured : NAN;
}

std::string percent(double e) { return std::isfinite(e) ? fmt::format("{:+.1f}%", 100 * e) : "-"; }

nlohmann::ordered_json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
}

// One figure of a run: a metric and a statistic ("" for throughput) and how to read it.
struct Stat {
  const char* metric;
  const char* stat;
  double (*of)(const sim::BenchFigures&);
};
constexpr Stat kStats[] = {
    {"ttft_s", "mean", [](const sim::BenchFigures& f) { return f.ttft_s.mean; }},
    {"ttft_s", "p50", [](const sim::BenchFigures& f) { return f.ttft_s.p50; }},
    {"ttft_s", "p90", [](const sim::BenchFigures& f) { return f.ttft_s.p90; }},
    {"ttft_s", "p99", [](const sim::BenchFigures& f) { return f.ttft_s.p99; }},
    {"tpot_s", "mean", [](const sim::BenchFigures& f) { return f.tpot_s.mean; }},
    {"tpot_s", "p50", [](const sim::BenchFigures& f) { return f.tpot_s.p50; }},
    {"tpot_s", "p90", [](const sim::BenchFigures& f) { return f.tpot_s.p90; }},
    {"tpot_s", "p99", [](const sim::BenchFigures& f) { return f.tpot_s.p99; }},
    {"e2e_s", "mean", [](const sim::BenchFigures& f) { return f.e2e_s.mean; }},
    {"e2e_s", "p50", [](const sim::BenchFigures& f) { return f.e2e_s.p50; }},
    {"e2e_s", "p90", [](const sim::BenchFigures& f) { return f.e2e_s.p90; }},
    {"e2e_s", "p99", [](const sim::BenchFigures& f) { return f.e2e_s.p99; }},
    {"output_tokens_per_s", "", [](const sim::BenchFigures& f) { return f.output_tokens_per_s; }},
};
// The figures a fit's report shows per run (each the mean).
constexpr size_t kFitReportStats[] = {0, 4, 8};

// {metric: {stat: cell}} (throughput: {metric: cell}), each cell made by `cell_of(stat)`.
template <typename CellOf>
nlohmann::ordered_json metrics_json(CellOf cell_of) {
  nlohmann::ordered_json metrics;
  for (const Stat& s : kStats) {
    if (*s.stat == '\0') {
      metrics[s.metric] = cell_of(s);
    } else {
      metrics[s.metric][s.stat] = cell_of(s);
    }
  }
  return metrics;
}

std::string rate_text(const sim::BenchResult& result) {
  return result.request_rate > 0
             ? fmt::format("{} req/s (burstiness {})", result.request_rate, result.burstiness)
             : "all sent at once (rate inf)";
}

// --- compare -------------------------------------------------------------------------------

nlohmann::ordered_json compare_json(const sim::BenchReplay& run, const sim::BenchFigures& k) {
  nlohmann::ordered_json j;
  j["file"] = run.path();
  j["requests"] = run.result().requests.size();
  j["failed"] = run.result().failed;
  j["metrics"] = metrics_json([&](const Stat& s) {
    const double m = s.of(run.measured()), v = s.of(k);
    return nlohmann::ordered_json{
        {"measured", m}, {"kvsim", v}, {"error", number_or_null(error_of(v, m))}};
  });
  return j;
}

void print_compare(const sim::BenchReplay& run, const sim::Summary& summary) {
  const sim::BenchResult& result = run.result();
  std::printf("%s: %zu requests replayed (%llu failed, left out), %s, max concurrency %s\n",
              run.path().c_str(), result.requests.size(),
              static_cast<unsigned long long>(result.failed), rate_text(result).c_str(),
              result.max_concurrency > 0 ? std::to_string(result.max_concurrency).c_str() : "none");
  std::printf("kvsim: scenario %s, %s on %u x %s, %s (latencies as a client sees them)\n\n",
              summary.info.scenario.c_str(), summary.info.model.c_str(), summary.info.num_devices,
              summary.info.device.c_str(), summary.info.cost_model.c_str());
  std::printf("%-22s %14s %14s %10s\n", "metric", "measured", "kvsim", "error");
  const sim::BenchFigures k = sim::simulated_figures(summary);
  for (const Stat& s : kStats) {
    const double m = s.of(run.measured()), v = s.of(k);
    const std::string name = *s.stat ? fmt::format("{} {}", s.metric, s.stat) : s.metric;
    std::printf("%-22s %14s %14s %10s\n", name.c_str(), format_fixed(m, 4).c_str(),
                format_fixed(v, 4).c_str(), percent(error_of(v, m)).c_str());
  }
}

int compare(const CalibrateSharedOptions& shared, const Runs& runs) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (size_t i = 0; i < runs.size(); ++i) {
    auto summary = runs[i]->run({}, {});
    if (!summary.is_ok()) return report_error(summary.status().with_context(runs[i]->path()));
    if (shared.json) {
      all.push_back(compare_json(*runs[i], sim::simulated_figures(*summary)));
    } else {
      if (i > 0) std::printf("\n");
      print_compare(*runs[i], *summary);
    }
  }
  if (shared.json) std::printf("%s\n", (all.size() == 1 ? all[0] : all).dump(2).c_str());
  return kExitOk;
}

// --- fit -----------------------------------------------------------------------------------

// Which runs --fit-on names: "all", or 1-based positions and paths, comma-separated.
StatusOr<std::vector<bool>> runs_to_fit(const std::string& fit_on, const Runs& runs) {
  std::vector<bool> chosen(runs.size(), fit_on == "all");
  if (fit_on == "all") return chosen;
  for (const std::string& name : split_names(fit_on)) {
    size_t at = runs.size();
    for (size_t i = 0; i < runs.size(); ++i) {
      if (name == std::to_string(i + 1) || name == runs[i]->path()) at = i;
    }
    if (at == runs.size()) {
      return Status::invalid_argument(fmt::format(
          "--fit-on: '{}' is not one of the {} runs (give all, or positions 1..{} or the "
          "--from-bench paths, comma-separated)",
          name, runs.size(), runs.size()));
    }
    chosen[at] = true;
  }
  return chosen;
}

// The median over held-out runs of |error| of stat `s`, before and after (NaN without any).
std::pair<double, double> held_out_median(const Runs& runs, const std::vector<bool>& fit_on,
                                          const sim::BenchFit& fit, const Stat& s) {
  std::vector<double> before, after;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (fit_on[i] || !(s.of(runs[i]->measured()) > 0)) continue;
    before.push_back(std::abs(error_of(s.of(fit.before[i]), s.of(runs[i]->measured()))));
    after.push_back(std::abs(error_of(s.of(fit.after[i]), s.of(runs[i]->measured()))));
  }
  if (before.empty()) return {NAN, NAN};
  return {sim::summarize_latencies(&before).p50, sim::summarize_latencies(&after).p50};
}

void print_fit(const Runs& runs, const std::vector<bool>& fit_on, const sim::BenchFit& fit) {
  const auto fitted = std::count(fit_on.begin(), fit_on.end(), true);
  std::printf("fitted %zu terms on %td of %zu runs (%d Levenberg-Marquardt steps)\n\n",
              fit.terms.size(), fitted, runs.size(), fit.iterations);
  std::printf("%-42s %14s %14s\n", "term", "start", "fitted");
  for (size_t t = 0; t < fit.terms.size(); ++t) {
    std::printf("%-42s %14.6g %14.6g\n", fit.terms[t].c_str(), fit.start[t], fit.fitted[t]);
  }
  std::printf("\n%-4s %-8s %-12s %12s %10s %10s  %s\n", "run", "set", "metric", "measured",
              "before", "after", "file");
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const size_t k : kFitReportStats) {
      const Stat& s = kStats[k];
      const double m = s.of(runs[i]->measured());
      std::printf("%-4zu %-8s %-12s %12s %10s %10s  %s\n", i + 1, fit_on[i] ? "fit" : "held out",
                  fmt::format("{} {}", s.metric, s.stat).c_str(), format_fixed(m, 4).c_str(),
                  percent(error_of(s.of(fit.before[i]), m)).c_str(),
                  percent(error_of(s.of(fit.after[i]), m)).c_str(), runs[i]->path().c_str());
    }
  }
  if (fitted == static_cast<std::ptrdiff_t>(runs.size())) {
    std::printf("\nno run held out: every run was fitted on\n");
    return;
  }
  std::printf("\nheld-out runs, median |error| before -> after:");
  for (const size_t k : kFitReportStats) {
    const auto [before, after] = held_out_median(runs, fit_on, fit, kStats[k]);
    std::printf(" %s %s %.1f%% -> %.1f%%;", kStats[k].metric, kStats[k].stat, 100 * before,
                100 * after);
  }
  std::printf("\n");
}

void print_fit_json(const Runs& runs, const std::vector<bool>& fit_on, const sim::BenchFit& fit) {
  nlohmann::ordered_json j;
  j["iterations"] = fit.iterations;
  for (size_t t = 0; t < fit.terms.size(); ++t) {
    j["terms"][fit.terms[t]] = {{"start", fit.start[t]}, {"fitted", fit.fitted[t]}};
  }
  j["runs"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < runs.size(); ++i) {
    j["runs"].push_back({{"file", runs[i]->path()},
                         {"fit", static_cast<bool>(fit_on[i])},
                         {"metrics", metrics_json([&](const Stat& s) {
                            const double m = s.of(runs[i]->measured());
                            return nlohmann::ordered_json{
                                {"measured", m},
                                {"before", number_or_null(error_of(s.of(fit.before[i]), m))},
                                {"after", number_or_null(error_of(s.of(fit.after[i]), m))}};
                          })}});
  }
  for (const size_t k : kFitReportStats) {
    const auto [before, after] = held_out_median(runs, fit_on, fit, kStats[k]);
    j["held_out_median_abs_error"][kStats[k].metric] = {{"before", number_or_null(before)},
                                                        {"after", number_or_null(after)}};
  }
  std::printf("%s\n", j.dump(2).c_str());
}

// The calibration YAML: the fitted operator parameters over the scenario's built-in fit, and
// the front end when it was fitted.
Status write_calibration(const std::string& out, const Runs& runs, const sim::BenchFit& fit,
                         const std::string& fit_on) {
  KVSIM_ASSIGN_OR_RETURN(const sim::SimulationSetup setup,
                         sim::prepare_simulation(runs.front()->scenario()));
  sim::OperatorFit base = sim::operator_fit_for_device(setup.device);
  if (!setup.scenario.cost_model.fit.empty()) {
    KVSIM_ASSIGN_OR_RETURN(base, sim::find_operator_fit(setup.scenario.cost_model.fit));
  }
  sim::CalibrationFile header;
  header.base = base.name;
  header.model = setup.model.name;
  header.device = setup.device.name;
  header.tp = setup.scenario.num_devices;
  header.rows = runs.size();
  std::vector<std::string> names;
  for (size_t t = 0; t < fit.terms.size(); ++t) {
    if (fit.terms[t] == "frontend_s") {
      header.frontend_s = fit.fitted[t];
      continue;
    }
    KVSIM_RETURN_IF_ERROR(sim::set_fit_parameter(&base, fit.terms[t], fit.fitted[t]));
    names.push_back(fit.terms[t]);
  }
  std::vector<std::string> comment = {"written by kvsim calibrate --from-bench, fitted on runs " +
                                      fit_on + " of:"};
  for (const auto& run : runs) comment.push_back("  " + run->path());
  comment.push_back("use it as cost_model: {kind: operators, calibration: <this file>}");
  return sim::write_file_atomic(out, sim::calibration_yaml(header, base, names, comment));
}

int fit_runs(const CalibrateSharedOptions& shared, const CalibrateBenchOptions& o,
             const Runs& runs) {
  auto fit_on = runs_to_fit(o.fit_on, runs);
  if (!fit_on.is_ok()) return report_error(fit_on.status());
  const std::vector<std::string> terms =
      shared.parameters.empty() ? sim::default_bench_fit_terms() : split_names(shared.parameters);
  std::vector<const sim::BenchReplay*> views;
  for (const auto& run : runs) views.push_back(run.get());
  auto fit = sim::fit_bench_runs(views, *fit_on, terms);
  if (!fit.is_ok()) return report_error(fit.status());
  if (shared.json) {
    print_fit_json(runs, *fit_on, *fit);
  } else {
    print_fit(runs, *fit_on, *fit);
  }
  if (shared.output.empty()) return kExitOk;
  const Status written = write_calibration(shared.output, runs, *fit, o.fit_on);
  if (!written.is_ok()) return report_error(written);
  if (!shared.json) std::printf("wrote %s\n", shared.output.c_str());
  return kExitOk;
}

}  // namespace

void add_calibrate_bench_options(CLI::App* command, CalibrateBenchOptions* o) {
  command->add_option("--from-bench", o->bench_paths,
                      "benchmark results to replay: vllm bench serve --save-result "
                      "--save-detailed JSON (a run each), sglang.bench_serving --output-details "
                      "JSONL (a run a line)");
  command->add_option("--scenario", o->scenario,
                      "the scenario they run on: preset or YAML file (default: default)");
  command->add_option("--set", o->overrides, "KEY=VALUE on the scenario, applied last");
  command->add_option("--seed", o->seed, "seed of the arrival gaps when none were recorded");
  command->add_option("--fit-on", o->fit_on,
                      "fit --parameters on these runs and report the others: all, or 1-based "
                      "positions (in the order the files and their lines give) or names (FILE, "
                      "or FILE:LINE in a JSONL), comma-separated");
}

int run_calibrate_from_bench(const CalibrateSharedOptions& shared, const CalibrateBenchOptions& o) {
  if (o.fit_on.empty() && (!shared.parameters.empty() || !shared.output.empty())) {
    return report_error(Status::invalid_argument(
        "calibrate --from-bench: --parameters and -o belong to a fit: add --fit-on RUNS"));
  }
  Runs runs;
  for (const std::string& path : o.bench_paths) {
    auto results = sim::read_bench_results(path);
    if (!results.is_ok()) return report_error(results.status());
    for (sim::BenchResult& result : *results) {
      auto run = sim::BenchReplay::open(std::move(result), scenario_request(shared, o), o.seed);
      if (!run.is_ok()) return report_error(run.status());
      runs.push_back(std::move(*run));
    }
  }
  return o.fit_on.empty() ? compare(shared, runs) : fit_runs(shared, o, runs);
}

}  // namespace kvsim::cli
