// Serving benchmark runs replayed, and a scenario fitted to them: the core of `kvsim calibrate
// --from-bench` (cli/calibrate_bench.h). A run is one benchmark result file (simulator/workload/
// bench_result.h): the requests its client sent are rebuilt as a trace and replayed through the
// scenario, and what the client measured is summarised as kvsim summarises its own runs.
//
// The fit moves `terms` of the scenario: "frontend_s" (cost_model.frontend_s, the client's time
// beyond the engine per request) and any parameter of the operator cost model (simulator/cost/
// operator_fits.h fit_parameters(); the scenario's cost_model.kind must then be operators).
// It minimises, over the runs it fits on, the squared log-ratios of kvsim's to the measured
// TTFT, TPOT and E2E means (simulator/cost/least_squares.h). A replay's figures jump where a
// change moves a request into another iteration, so the Jacobian's steps are coarse (3%, then
// 1%, then 0.3% of each value, each pass from the last one's best) and percentiles, which jump
// most, are reported, not fitted. On runs kvsim itself made with known terms it recovers them
// (tests: to 2%).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "simulator/simulation.h"
#include "simulator/workload/bench_result.h"

namespace kvsim::sim {

// A run's latency figures: measured by its client, or simulated (the client's view).
struct BenchFigures {
  LatencySummary ttft_s, tpot_s, e2e_s;
  double output_tokens_per_s = 0;
};

// The client's figures: TPOT = (E2E - TTFT) / (output - 1) over requests of two tokens or more,
// E2E = TTFT + the gaps, output tokens over the benchmark's duration.
BenchFigures measured_figures(const BenchResult& result);
BenchFigures simulated_figures(const Summary& summary);

// One run ready to replay. Its trace lives in the temporary folder as long as the replay.
class BenchReplay {
 public:
  // Writes the run's requests as a trace (write_bench_trace with `seed`) and loads `request`'s
  // scenario on that trace with the client's concurrency limit (the request's own overrides
  // are applied after it).
  static StatusOr<std::unique_ptr<BenchReplay>> open(BenchResult result, ScenarioRequest request,
                                                     uint64_t seed);
  ~BenchReplay();
  BenchReplay(const BenchReplay&) = delete;
  BenchReplay& operator=(const BenchReplay&) = delete;

  const std::string& path() const { return result_.name; }
  const BenchResult& result() const { return result_; }
  const Scenario& scenario() const { return scenario_; }
  const BenchFigures& measured() const { return measured_; }

  // The replay with `terms` set to `values` (set_bench_terms).
  StatusOr<Summary> run(const std::vector<std::string>& terms,
                        const std::vector<double>& values) const;

 private:
  BenchReplay() = default;
  std::string trace_;
  BenchResult result_;
  Scenario scenario_;
  BenchFigures measured_;
};

// The terms fitted when none are named: the front end (TTFT's constant), the GEMMs' weight-read
// efficiency (decode) and their compute plateau (prefill).
std::vector<std::string> default_bench_fit_terms();
// Sets each term in the scenario; an unknown name lists the valid ones, an operator parameter
// on another cost model kind names the kind.
Status set_bench_terms(const std::vector<std::string>& terms, const std::vector<double>& values,
                       Scenario* scenario);

struct BenchFit {
  std::vector<std::string> terms;
  std::vector<double> start, fitted;        // each term's value before and after
  std::vector<BenchFigures> before, after;  // each run's simulated figures
  int iterations = 0;                       // Levenberg-Marquardt steps
};

// Fits `terms` on the runs where fit_on[i] is true (from the first run's scenario values) and
// replays every run before and after. Needs at least one run to fit on, and as many measured
// figures there as terms.
StatusOr<BenchFit> fit_bench_runs(const std::vector<const BenchReplay*>& runs,
                                  const std::vector<bool>& fit_on,
                                  const std::vector<std::string>& terms);

}  // namespace kvsim::sim
