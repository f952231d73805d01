// kvsim calibrate --from-bench (cli/calibrate_bench.h): read the result, write the requests as
// a trace, run the scenario on it, print measured beside simulated.
#include "cli/calibrate_bench.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/base/text_format.h"
#include "simulator/simulation.h"
#include "simulator/workload/bench_result.h"

namespace kvsim::cli {
namespace {

struct Figures {
  sim::LatencySummary ttft_s, tpot_s, e2e_s;
  double output_tokens_per_s = 0;
};

// The measured figures, summarised as kvsim summarises its own (simulator/output/metrics.h):
// TPOT = (E2E - TTFT) / (output - 1) over requests of two tokens or more, E2E = TTFT + the gaps.
Figures measured_figures(const sim::BenchResult& result) {
  std::vector<double> ttft, tpot, e2e;
  double tokens = 0;
  for (const sim::BenchRequest& r : result.requests) {
    double gaps = 0;
    for (const double gap : r.itls_s) gaps += gap;
    ttft.push_back(r.ttft_s);
    e2e.push_back(r.ttft_s + gaps);
    if (r.output_tokens >= 2) tpot.push_back(gaps / (r.output_tokens - 1));
    tokens += r.output_tokens;
  }
  Figures f;
  f.ttft_s = sim::summarize_latencies(&ttft);
  f.tpot_s = sim::summarize_latencies(&tpot);
  f.e2e_s = sim::summarize_latencies(&e2e);
  f.output_tokens_per_s = result.duration_s > 0 ? tokens / result.duration_s : 0;
  return f;
}

Figures simulated_figures(const sim::Summary& s) {
  return {s.ttft_s, s.tpot_s, s.e2e_s, s.output_tokens_per_s};
}

// The scenario with the shared flags and the client's limit as overrides, the user's last.
sim::ScenarioRequest scenario_request(const CalibrateSharedOptions& shared,
                                      const CalibrateBenchOptions& o,
                                      const sim::BenchResult& result, const std::string& trace) {
  sim::ScenarioRequest request;
  request.scenario = o.scenario;
  request.trace = trace;
  request.trace_format = "csv";
  request.seed = o.seed;
  auto& set = request.overrides;
  if (!shared.model.model.empty()) set.push_back("model=" + shared.model.model);
  if (!shared.device.empty()) set.push_back("device=" + shared.device);
  if (shared.tp) set.push_back(fmt::format("num_devices={}", *shared.tp));
  if (!shared.weight_dtype.empty()) set.push_back("weight_dtype=" + shared.weight_dtype);
  if (!shared.kv_dtype.empty()) set.push_back("cache.dtype=" + shared.kv_dtype);
  set.push_back(fmt::format("workload.max_concurrency={}", result.max_concurrency));
  set.insert(set.end(), o.overrides.begin(), o.overrides.end());
  return request;
}

double error_of(double simulated, double measured) {
  return measured != 0 ? (simulated - measured) / measured : NAN;
}

struct Row {
  std::string metric;
  std::string stat;
  double measured, simulated;
};

std::vector<Row> rows_of(const Figures& m, const Figures& k) {
  std::vector<Row> rows;
  const std::pair<const char*, const sim::LatencySummary Figures::*> latencies[] = {
      {"ttft_s", &Figures::ttft_s}, {"tpot_s", &Figures::tpot_s}, {"e2e_s", &Figures::e2e_s}};
  for (const auto& [name, field] : latencies) {
    const sim::LatencySummary &a = m.*field, &b = k.*field;
    rows.push_back({name, "mean", a.mean, b.mean});
    rows.push_back({name, "p50", a.p50, b.p50});
    rows.push_back({name, "p90", a.p90, b.p90});
    rows.push_back({name, "p99", a.p99, b.p99});
  }
  rows.push_back({"output_tokens_per_s", "", m.output_tokens_per_s, k.output_tokens_per_s});
  return rows;
}

void print_json(const sim::BenchResult& result, const std::vector<Row>& rows) {
  nlohmann::ordered_json j;
  j["requests"] = result.requests.size();
  j["failed"] = result.failed;
  nlohmann::ordered_json metrics;
  for (const Row& r : rows) {
    nlohmann::ordered_json cell = {{"measured", r.measured}, {"kvsim", r.simulated}};
    const double e = error_of(r.simulated, r.measured);
    cell["error"] = std::isfinite(e) ? nlohmann::ordered_json(e) : nlohmann::ordered_json();
    if (r.stat.empty()) {
      metrics[r.metric] = cell;
    } else {
      metrics[r.metric][r.stat] = cell;
    }
  }
  j["metrics"] = std::move(metrics);
  std::printf("%s\n", j.dump(2).c_str());
}

void print_text(const CalibrateBenchOptions& o, const sim::BenchResult& result,
                const sim::Summary& summary, const std::vector<Row>& rows) {
  std::printf(
      "%s: %zu requests replayed (%llu failed, left out), %s, max concurrency %s\n",
      o.bench_path.c_str(), result.requests.size(), static_cast<unsigned long long>(result.failed),
      result.request_rate > 0
          ? fmt::format("{} req/s (burstiness {})", result.request_rate, result.burstiness).c_str()
          : "all sent at once (rate inf)",
      result.max_concurrency > 0 ? std::to_string(result.max_concurrency).c_str() : "none");
  std::printf("kvsim: scenario %s, %s on %u x %s, %s (latencies as a client sees them)\n\n",
              summary.info.scenario.c_str(), summary.info.model.c_str(), summary.info.num_devices,
              summary.info.device.c_str(), summary.info.cost_model.c_str());
  std::printf("%-22s %14s %14s %10s\n", "metric", "measured", "kvsim", "error");
  for (const Row& r : rows) {
    const double e = error_of(r.simulated, r.measured);
    std::printf("%-22s %14s %14s %10s\n", (r.metric + (r.stat.empty() ? "" : " " + r.stat)).c_str(),
                format_fixed(r.measured, 4).c_str(), format_fixed(r.simulated, 4).c_str(),
                std::isfinite(e) ? (format_fixed(100 * e, 1) + "%").c_str() : "-");
  }
}

StatusOr<sim::Summary> replay(const CalibrateSharedOptions& shared, const CalibrateBenchOptions& o,
                              const sim::BenchResult& result) {
  const std::string trace = (std::filesystem::temp_directory_path() /
                             fmt::format("kvsim-bench-{}.csv", static_cast<long>(getpid())))
                                .string();
  KVSIM_RETURN_IF_ERROR(sim::write_bench_trace(result, o.seed, trace));
  auto run = [&]() -> StatusOr<sim::Summary> {
    KVSIM_ASSIGN_OR_RETURN(
        const sim::Scenario scenario,
        sim::load_requested_scenario(scenario_request(shared, o, result, trace)));
    KVSIM_ASSIGN_OR_RETURN(const sim::SimulationSetup setup, sim::prepare_simulation(scenario));
    return sim::run_simulation(setup, {});
  };
  StatusOr<sim::Summary> summary = run();
  std::error_code ignored;
  std::filesystem::remove(trace, ignored);
  return summary;
}

}  // namespace

void add_calibrate_bench_options(CLI::App* command, CalibrateBenchOptions* o) {
  command->add_option("--from-bench", o->bench_path,
                      "a vllm bench serve --save-result --save-detailed JSON to replay");
  command->add_option("--scenario", o->scenario,
                      "the scenario it runs on: preset or YAML file (default: default)");
  command->add_option("--set", o->overrides, "KEY=VALUE on the scenario, applied last");
  command->add_option("--seed", o->seed, "seed of the arrival gaps when none were recorded");
}

int run_calibrate_from_bench(const CalibrateSharedOptions& shared, const CalibrateBenchOptions& o) {
  auto result = sim::read_bench_result(o.bench_path);
  if (!result.is_ok()) return report_error(result.status());
  if (result->requests.empty()) {
    return report_error(Status::invalid_argument(o.bench_path + ": no request succeeded"));
  }
  auto summary = replay(shared, o, *result);
  if (!summary.is_ok()) return report_error(summary.status());
  const std::vector<Row> rows = rows_of(measured_figures(*result), simulated_figures(*summary));
  if (shared.json) {
    print_json(*result, rows);
  } else {
    print_text(o, *result, *summary, rows);
  }
  return kExitOk;
}

}  // namespace kvsim::cli
