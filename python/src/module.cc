// _kvsim: the C++ half of the Python module kvsim (python/kvsim/__init__.py is the other half).
//
// Thin by contract: each function maps its arguments onto the libraries' own structs, calls
// core or the simulator's façade (simulator/simulation.h) and returns the JSON text the CLI
// prints for the same inputs (core/capacity_json.h, summary_to_json), which kvsim/__init__.py
// turns into dicts, so the numbers are the CLI's byte for byte. A bad input's Status becomes
// kvsim.Error carrying the Status's message (the CLI's, "file:line:column: ..." for YAML);
// no C++ exception other than the ones pybind11 translates reaches Python.
//
// The GIL is released while a simulation runs; every progress period (the engine's, 2^15
// events) the run takes it back to check for signals (Ctrl-C: the run stops through
// RunOptions::stop and KeyboardInterrupt is raised) and to call the caller's progress.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/capacity_json.h"
#include "core/dtype.h"
#include "core/presets.h"
#include "simulator/simulation.h"

namespace py = pybind11;

namespace kvsim::python {
namespace {

// Raised as kvsim.Error (a ValueError) with the Status's message.
class StatusError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void raise_if_error(const Status& status) {
  if (!status.is_ok()) throw StatusError(status.message());
}

template <typename T>
T value_or_raise(StatusOr<T> result) {
  raise_if_error(result.status());
  return std::move(*result);
}

// The capacity options a caller gave; empty = CapacityQuery's default (the CLI's).
struct CapacityArgs {
  std::optional<std::string> dtype;
  std::optional<std::string> weight_dtype;
  std::optional<uint64_t> batch;
  std::optional<uint64_t> seq_len;
  std::optional<double> mem_fraction;
  std::optional<uint32_t> block_size;
  std::optional<uint32_t> tp;
  std::optional<uint64_t> kv_budget_bytes;
  std::optional<uint64_t> reserve_bytes;
  std::optional<uint32_t> quant_group;
  std::optional<uint64_t> max_num_batched_tokens;
};

CapacityQuery capacity_query(const CapacityArgs& a) {
  CapacityQuery q;
  if (a.dtype) q.kv.dtype = value_or_raise(parse_dtype(*a.dtype));
  if (a.weight_dtype) q.weight_dtype = value_or_raise(parse_dtype(*a.weight_dtype));
  q.batch = a.batch.value_or(q.batch);
  q.seq_len = a.seq_len.value_or(q.seq_len);
  q.mem_fraction = a.mem_fraction.value_or(q.mem_fraction);
  q.block_size = a.block_size.value_or(q.block_size);
  q.tp = a.tp.value_or(q.tp);
  q.kv.quant_group = a.quant_group.value_or(q.kv.quant_group);
  q.max_num_batched_tokens = a.max_num_batched_tokens.value_or(q.max_num_batched_tokens);
  q.kv_budget_bytes = a.kv_budget_bytes;
  q.reserve_bytes = a.reserve_bytes;
  return q;
}

// `kvsim capacity --json`: one object, or an array with several devices.
std::string capacity_json(const std::string& model_name, const std::string& device_spec,
                          const CapacityArgs& args) {
  const ModelSpec model = value_or_raise(load_model(model_name));
  const CapacityQuery query = capacity_query(args);
  const std::vector<DeviceSpec> devices = value_or_raise(load_device_list(device_spec));
  nlohmann::json out = nlohmann::json::array();
  if (devices.empty()) {
    out.push_back(capacity_to_json(model, nullptr, query,
                                   value_or_raise(compute_capacity(model, nullptr, query))));
  }
  for (const DeviceSpec& device : devices) {
    out.push_back(capacity_to_json(model, &device, query,
                                   value_or_raise(compute_capacity(model, &device, query))));
  }
  return (out.size() == 1 ? out[0] : out).dump();
}

using ProgressFn = std::function<void(double)>;

// Runs one scenario with the GIL released; returns the summary JSON (`kvsim simulate --json`).
std::string simulate_json(const sim::ScenarioRequest& request, const std::string& out_dir,
                          const std::optional<ProgressFn>& progress) {
  const sim::Scenario scenario = value_or_raise(sim::load_requested_scenario(request));
  const sim::SimulationSetup setup = value_or_raise(sim::prepare_simulation(scenario));
  std::atomic<bool> stop{false};
  std::optional<py::error_already_set> python_error;  // touched only with the GIL held
  sim::RunOptions run;
  run.out_dir = out_dir;
  run.stop = &stop;
  run.progress = [&](const sim::Progress& p) {
    py::gil_scoped_acquire gil;
    if (python_error) return;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (progress) (*progress)(p.fraction);
    } catch (py::error_already_set& e) {
      python_error = std::move(e);
      stop = true;
    }
  };
  std::optional<StatusOr<sim::Summary>> summary;
  {
    py::gil_scoped_release nogil;
    summary = sim::run_simulation(setup, run);
  }
  if (python_error) throw std::move(*python_error);
  return sim::summary_to_json(value_or_raise(std::move(*summary)), /*with_wall=*/true).dump();
}

py::dict preset_lists() {
  py::dict out;
  for (PresetKind kind : {PresetKind::kModel, PresetKind::kDevice, PresetKind::kScenario,
                          PresetKind::kSweep, PresetKind::kLink}) {
    out[py::str(std::string(preset_dir(kind)))] = preset_names(kind);
  }
  return out;
}

}  // namespace
}  // namespace kvsim::python

PYBIND11_MODULE(_kvsim, m) {
  using namespace kvsim::python;
  m.doc() = "kvsim's C++ engine; use the kvsim package, which wraps these functions.";
  py::register_exception<StatusError>(m, "Error", PyExc_ValueError);
  m.def(
      "capacity_json",
      [](const std::string& model, const std::string& device, std::optional<std::string> dtype,
         std::optional<std::string> weight_dtype, std::optional<uint64_t> batch,
         std::optional<uint64_t> seq_len, std::optional<double> mem_fraction,
         std::optional<uint32_t> block_size, std::optional<uint32_t> tp,
         std::optional<uint64_t> kv_budget_bytes, std::optional<uint64_t> reserve_bytes,
         std::optional<uint32_t> quant_group, std::optional<uint64_t> max_num_batched_tokens) {
        return capacity_json(model, device,
                             {dtype, weight_dtype, batch, seq_len, mem_fraction, block_size, tp,
                              kv_budget_bytes, reserve_bytes, quant_group, max_num_batched_tokens});
      },
      py::arg("model"), py::arg("device"), py::arg("dtype"), py::arg("weight_dtype"),
      py::arg("batch"), py::arg("seq_len"), py::arg("mem_fraction"), py::arg("block_size"),
      py::arg("tp"), py::arg("kv_budget_bytes"), py::arg("reserve_bytes"), py::arg("quant_group"),
      py::arg("max_num_batched_tokens"));
  m.def(
      "simulate_json",
      [](const std::string& scenario, const std::vector<std::string>& overrides,
         const std::string& trace, const std::string& trace_format, bool skip_bad_rows,
         std::optional<uint64_t> seed, const std::string& out_dir,
         std::optional<ProgressFn> progress) {
        kvsim::sim::ScenarioRequest request{scenario,      trace, trace_format,
                                            skip_bad_rows, seed,  overrides};
        return simulate_json(request, out_dir, progress);
      },
      py::arg("scenario"), py::arg("overrides"), py::arg("trace"), py::arg("trace_format"),
      py::arg("skip_bad_rows"), py::arg("seed"), py::arg("out_dir"), py::arg("progress"));
  m.def("presets", &preset_lists, "Embedded preset names by kind (the folders under presets/).");
}
