// The bindings that run something long (a simulation, a perplexity measurement, a sweep). Each
// runs on a worker thread with the GIL released while the calling thread watches for signals
// (binding_util.h's PythonCallbacks::run); the run's progress callbacks take the GIL for a
// moment. Ctrl-C and an exception in `progress` stop a simulation or a PPL measurement through
// its stop flag; a sweep finishes the points it is running and starts no other. Each returns
// the JSON text (or the folder's files) the CLI writes for the same inputs.
#include "python/src/runs.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/ppl_job.h"
#include "kernels/ppl_json.h"
#include "python/src/binding_util.h"
#include "python/src/tables.h"
#include "simulator/run/run_options.h"
#include "simulator/simulation.h"
#include "simulator/sweep/sweep_job.h"

namespace kvsim::python {
namespace {

using ShareFn = std::function<void(double)>;
using CountFn = std::function<void(size_t, size_t)>;

// `kvsim simulate --json` (the summary) and the run's tables: a lone engine's in memory
// (tables.h: {"requests": {...}, "timeseries": {...}} of numpy arrays, the ones its output
// section asks for), no files written unless its output.dir asks; a cluster's written into
// out_dir, for Python to read (None in their place).
py::tuple simulate_run(const sim::ScenarioRequest& request, const std::string& out_dir,
                       const std::optional<ShareFn>& progress) {
  const sim::Scenario scenario = value_or_raise(sim::load_requested_scenario(request));
  const sim::SimulationSetup setup = value_or_raise(sim::prepare_simulation(scenario));
  const bool in_memory = setup.cluster == nullptr;
  RequestColumns requests;
  TimeseriesColumns timeseries(sim::timeseries_interval_ns(scenario.output));
  PythonCallbacks python;
  sim::RunOptions run;
  if (in_memory) {
    if (scenario.output.requests_csv) run.observers.push_back(&requests);
    if (scenario.output.timeseries) run.observers.push_back(&timeseries);
  } else {
    run.out_dir = out_dir;
  }
  run.stop = python.stop();
  run.progress = [&](const sim::Progress& p) {
    python.call([&] {
      if (progress) (*progress)(p.fraction);
    });
  };
  StatusOr<sim::Summary> summary = python.run([&] { return sim::run_simulation(setup, run); });
  python.rethrow();
  const std::string summary_json =
      sim::summary_to_json(value_or_raise(std::move(summary)), /*with_wall=*/true).dump();
  if (!in_memory) return py::make_tuple(summary_json, py::none());
  py::dict tables;
  if (scenario.output.requests_csv) tables["requests"] = requests.to_numpy();
  if (scenario.output.timeseries) tables["timeseries"] = timeseries.to_numpy();
  return py::make_tuple(summary_json, tables);
}

// `kvsim ppl --json`.
std::string ppl_json(const kernels::PplJob& job, const std::optional<ShareFn>& progress) {
  PythonCallbacks python;
  kernels::PerplexityHooks hooks;
  hooks.stop = python.stop();
  hooks.progress = [&](double share) {
    python.call([&] {
      if (progress) (*progress)(share);
    });
  };
  StatusOr<kernels::PplJobResult> result =
      python.run([&] { return kernels::run_ppl_job(job, hooks); });
  python.rethrow();
  return kernels::ppl_job_json(value_or_raise(std::move(result))).dump();
}

// `kvsim sweep SPEC --out out_dir --jobs jobs`: the sweep's folder (summary.csv, points/).
// spec_yaml non-empty: the sweep as YAML text, `spec` naming it in messages. Ctrl-C, or an
// exception in progress(done, total), lets the points running finish (they are recorded) and
// starts no other.
py::dict sweep_run(const std::string& spec_name, const std::string& spec_yaml,
                   const std::string& out_dir, size_t jobs,
                   const std::optional<CountFn>& progress) {
  const sim::LoadedSweep sweep = value_or_raise(sim::load_sweep_request({spec_name, spec_yaml}));
  PythonCallbacks python;
  sim::SweepRunOptions options;
  options.out_dir = out_dir;
  options.jobs = jobs;
  options.stop = python.stop();
  options.on_progress = [&](const sim::SweepProgress& p) {
    python.call([&] {
      if (progress) (*progress)(p.done, p.total);
    });
  };
  StatusOr<sim::SweepRunResult> result =
      python.run([&] { return sim::run_loaded_sweep(sweep, options); });
  python.rethrow();
  const sim::SweepRunResult done = value_or_raise(std::move(result));
  py::dict out;
  out["ran"] = done.ran;
  out["failed"] = done.failed;
  out["skipped"] = done.skipped;
  return out;
}

}  // namespace

void def_runs(py::module_& m) {
  m.def(
      "simulate_run",
      [](const std::string& scenario, const std::string& scenario_yaml,
         const std::vector<std::string>& overrides, const std::string& trace,
         const std::string& trace_format, bool skip_bad_rows, std::optional<uint64_t> seed,
         const std::string& deployment, const std::string& out_dir,
         std::optional<ShareFn> progress) {
        sim::ScenarioRequest request{scenario,      scenario_yaml, trace,      trace_format,
                                     skip_bad_rows, seed,          deployment, overrides};
        return simulate_run(request, out_dir, progress);
      },
      py::arg("scenario"), py::arg("scenario_yaml"), py::arg("overrides"), py::arg("trace"),
      py::arg("trace_format"), py::arg("skip_bad_rows"), py::arg("seed"), py::arg("deployment"),
      py::arg("out_dir"), py::arg("progress"));
  m.def(
      "ppl_json",
      [](const std::vector<std::string>& policies, const std::vector<uint64_t>& budgets,
         std::optional<std::string> checkpoint, std::optional<std::string> tokenizer,
         std::optional<std::string> text, std::optional<std::string> kv_layout,
         std::optional<std::string> kv_dtype, std::optional<uint32_t> block_size,
         std::optional<uint32_t> ctx, std::optional<uint64_t> max_tokens,
         std::optional<ShareFn> progress) {
        kernels::PplJob job;
        job.policies = policies;
        job.budgets = budgets;
        job.checkpoint = checkpoint.value_or(job.checkpoint);
        job.tokenizer = tokenizer.value_or(job.tokenizer);
        job.text = text.value_or(job.text);
        job.kv_layout = kv_layout.value_or(job.kv_layout);
        job.kv_dtype = kv_dtype.value_or(job.kv_dtype);
        job.block_size = block_size.value_or(job.block_size);
        job.ctx = ctx.value_or(job.ctx);
        job.max_tokens = max_tokens.value_or(job.max_tokens);
        return ppl_json(job, progress);
      },
      py::arg("policies"), py::arg("budgets"), py::arg("checkpoint"), py::arg("tokenizer"),
      py::arg("text"), py::arg("kv_layout"), py::arg("kv_dtype"), py::arg("block_size"),
      py::arg("ctx"), py::arg("max_tokens"), py::arg("progress"));
  m.def("sweep_run", &sweep_run, py::arg("spec"), py::arg("spec_yaml"), py::arg("out_dir"),
        py::arg("jobs"), py::arg("progress"));
  m.def("table_columns", &table_column_names,
        "The column names of simulate_run's tables, as requests.csv and timeseries.csv have them.");
}

}  // namespace kvsim::python
