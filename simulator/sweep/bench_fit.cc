// The replay of benchmark runs and the fit of a scenario's terms to them (bench_fit.h).
#include "simulator/sweep/bench_fit.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>

#include "core/base/names.h"
#include "simulator/cost/least_squares.h"
#include "simulator/cost/make_cost_model.h"
#include "simulator/cost/operator_fits.h"

namespace kvsim::sim {
namespace {

constexpr std::string_view kFrontendTerm = "frontend_s";
constexpr double kFrontendMaxS = 1.0;  // a fit's range for the front end
// The forward-difference steps, relative to each value, of the fit's passes: a replay's figures
// jump where a change moves a request into another iteration, so each pass starts from the
// last one's best with a finer step (coarse steps see the trend, finer ones settle in it).
constexpr double kFitSteps[] = {3e-2, 1e-2, 3e-3};
constexpr double kFitMinStep = 1e-4;  // and at least this (100 us of front end)

Status unknown_term(std::string_view name) {
  std::vector<std::string> names = {std::string(kFrontendTerm)};
  for (std::string& parameter : fit_parameter_names()) names.push_back(std::move(parameter));
  return Status::invalid_argument(unknown_name_message("term to fit", name, names));
}

// Each term's value in a prepared setup: the front end from the scenario, an operator
// parameter from the fit the scenario resolves to.
StatusOr<std::vector<double>> term_values(const SimulationSetup& setup,
                                          const std::vector<std::string>& terms) {
  KVSIM_ASSIGN_OR_RETURN(const OperatorFit fit,
                         resolve_operator_fit(setup.scenario.cost_model, setup.device));
  std::vector<double> values;
  for (const std::string& term : terms) {
    values.push_back(term == kFrontendTerm ? setup.scenario.cost_model.frontend_s
                                           : get_fit_parameter(fit, term));
  }
  return values;
}

// log(kvsim / measured) of the figures a fit compares, where the measured one is positive:
// the means (a percentile jumps as single requests cross an iteration; a mean moves smoothly).
void append_residuals(const BenchFigures& measured, const BenchFigures& simulated,
                      std::vector<double>* out) {
  const std::pair<double, double> pairs[] = {{measured.ttft_s.mean, simulated.ttft_s.mean},
                                             {measured.tpot_s.mean, simulated.tpot_s.mean},
                                             {measured.e2e_s.mean, simulated.e2e_s.mean}};
  for (const auto& [m, s] : pairs) {
    if (m > 0) out->push_back(std::log(std::max(s, 1e-12) / m));
  }
}

// The terms' values in the run's scenario, once the names are known to be settable there.
StatusOr<std::vector<double>> start_values(const BenchReplay& run,
                                           const std::vector<std::string>& terms) {
  Scenario check = run.scenario();  // set_bench_terms says which name or kind is wrong
  KVSIM_RETURN_IF_ERROR(set_bench_terms(terms, std::vector<double>(terms.size(), 0), &check));
  KVSIM_ASSIGN_OR_RETURN(const SimulationSetup setup, prepare_simulation(run.scenario()));
  return term_values(setup, terms);
}

// Levenberg-Marquardt in passes of finer steps (kFitSteps), each from the best so far.
StatusOr<std::vector<double>> solve_in_passes(LeastSquaresProblem problem,
                                              const std::vector<double>& start, int* iterations) {
  KVSIM_ASSIGN_OR_RETURN(const std::vector<double> first, problem.residuals(start));
  if (first.size() < start.size()) {
    return Status::invalid_argument(
        fmt::format("{} measured figures cannot fix {} terms", first.size(), start.size()));
  }
  LeastSquaresFit best{start, 0, 0};
  for (const double r : first) best.cost += r * r;
  for (const double step : kFitSteps) {
    problem.relative_step = step;
    KVSIM_ASSIGN_OR_RETURN(const LeastSquaresFit solved, least_squares(problem, best.values));
    *iterations += solved.iterations;
    if (solved.cost < best.cost) best = solved;
  }
  return best.values;
}

}  // namespace

BenchFigures measured_figures(const BenchResult& result) {
  std::vector<double> ttft, tpot, e2e;
  double tokens = 0;
  for (const BenchRequest& r : result.requests) {
    double gaps = 0;
    for (const double gap : r.itls_s) gaps += gap;
    ttft.push_back(r.ttft_s);
    e2e.push_back(r.ttft_s + gaps);
    if (r.output_tokens >= 2) tpot.push_back(gaps / (r.output_tokens - 1));
    tokens += r.output_tokens;
  }
  BenchFigures f;
  f.ttft_s = summarize_latencies(&ttft);
  f.tpot_s = summarize_latencies(&tpot);
  f.e2e_s = summarize_latencies(&e2e);
  f.output_tokens_per_s = result.duration_s > 0 ? tokens / result.duration_s : 0;
  return f;
}

BenchFigures simulated_figures(const Summary& s) {
  return {s.ttft_s, s.tpot_s, s.e2e_s, s.output_tokens_per_s};
}

StatusOr<std::unique_ptr<BenchReplay>> BenchReplay::open(BenchResult result,
                                                         ScenarioRequest request, uint64_t seed) {
  static std::atomic<int> opened{0};
  if (result.requests.empty()) {
    return Status::invalid_argument(result.name + ": no request succeeded");
  }
  std::unique_ptr<BenchReplay> replay(new BenchReplay());
  replay->result_ = std::move(result);
  replay->measured_ = measured_figures(replay->result_);
  replay->trace_ = (std::filesystem::temp_directory_path() /
                    fmt::format("kvsim-bench-{}-{}.csv", static_cast<long>(getpid()), opened++))
                       .string();
  KVSIM_RETURN_IF_ERROR(write_bench_trace(replay->result_, seed, replay->trace_));
  request.trace = replay->trace_;
  request.trace_format = "csv";
  request.seed = seed;
  request.overrides.insert(request.overrides.begin(), fmt::format("workload.max_concurrency={}",
                                                                  replay->result_.max_concurrency));
  KVSIM_ASSIGN_OR_RETURN(replay->scenario_, load_requested_scenario(request));
  return replay;
}

BenchReplay::~BenchReplay() {
  std::error_code ignored;
  if (!trace_.empty()) std::filesystem::remove(trace_, ignored);
}

StatusOr<Summary> BenchReplay::run(const std::vector<std::string>& terms,
                                   const std::vector<double>& values) const {
  Scenario scenario = scenario_;
  KVSIM_RETURN_IF_ERROR(set_bench_terms(terms, values, &scenario));
  KVSIM_ASSIGN_OR_RETURN(const SimulationSetup setup, prepare_simulation(scenario));
  return run_simulation(setup, {});
}

std::vector<std::string> default_bench_fit_terms() {
  return {std::string(kFrontendTerm), "gemm.memory_efficiency", "gemm.compute_efficiency_max"};
}

Status set_bench_terms(const std::vector<std::string>& terms, const std::vector<double>& values,
                       Scenario* scenario) {
  CostModelConfig& config = scenario->cost_model;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (terms[i] == kFrontendTerm) {
      config.frontend_s = values[i];
      continue;
    }
    if (!find_fit_parameter(terms[i]).is_ok()) return unknown_term(terms[i]);
    if (config.kind != CostModelKind::kOperators) {
      return Status::invalid_argument(
          "'" + terms[i] + "' is a parameter of the operators cost model; the scenario's is " +
          std::string(cost_model_kind_name(config.kind)) +
          " (fit frontend_s, or set "
          "cost_model.kind=operators)");
    }
    config.parameters.push_back({terms[i], values[i], {}});
  }
  return Status::ok();
}

StatusOr<BenchFit> fit_bench_runs(const std::vector<const BenchReplay*>& runs,
                                  const std::vector<bool>& fit_on,
                                  const std::vector<std::string>& terms) {
  if (std::find(fit_on.begin(), fit_on.end(), true) == fit_on.end()) {
    return Status::invalid_argument("no run to fit on");
  }
  BenchFit fit;
  fit.terms = terms;
  KVSIM_ASSIGN_OR_RETURN(fit.start, start_values(*runs.front(), terms));
  LeastSquaresProblem problem;
  problem.absolute_step = kFitMinStep;
  for (const std::string& term : terms) {  // set_bench_terms checked them (start_values)
    const auto p = find_fit_parameter(term);
    problem.min.push_back(p.is_ok() ? (*p)->min : 0.0);
    problem.max.push_back(p.is_ok() ? (*p)->max : kFrontendMaxS);
  }
  problem.residuals = [&](const std::vector<double>& values) -> StatusOr<std::vector<double>> {
    std::vector<double> residuals;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (!fit_on[i]) continue;
      KVSIM_ASSIGN_OR_RETURN(const Summary summary, runs[i]->run(terms, values));
      append_residuals(runs[i]->measured(), simulated_figures(summary), &residuals);
    }
    return residuals;
  };
  KVSIM_ASSIGN_OR_RETURN(fit.fitted, solve_in_passes(problem, fit.start, &fit.iterations));
  for (const BenchReplay* run : runs) {
    KVSIM_ASSIGN_OR_RETURN(const Summary before, run->run(terms, fit.start));
    KVSIM_ASSIGN_OR_RETURN(const Summary after, run->run(terms, fit.fitted));
    fit.before.push_back(simulated_figures(before));
    fit.after.push_back(simulated_figures(after));
  }
  return fit;
}

}  // namespace kvsim::sim
