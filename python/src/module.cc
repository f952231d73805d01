// _kvsim: the C++ half of the Python module kvsim (python/kvsim/__init__.py is the other half).
//
// Thin by contract: each function maps its arguments onto the libraries' own structs, calls
// core, the kernels or the simulator's façade (simulator/simulation.h) and returns the JSON
// text the CLI prints for the same inputs (core/report/capacity_json.h, core/report/layout_json.h,
// summary_to_json, kernels/ppl_json.h), which kvsim/__init__.py turns into dicts, so the
// numbers are the CLI's byte for byte. A bad input's Status becomes kvsim.Error carrying the
// Status's message (the CLI's, "file:line:column: ..." for YAML); no C++ exception other than
// the ones pybind11 translates reaches Python. The runs (simulate, ppl, sweep) are in runs.cc.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/config/presets.h"
#include "core/engine/capacity_plan.h"
#include "core/engine/engine_config.h"
#include "core/model/dtype.h"
#include "core/model/load_spec.h"
#include "core/model/weight_memory.h"
#include "core/report/capacity_json.h"
#include "core/report/layout_json.h"
#include "python/src/binding_util.h"
#include "python/src/runs.h"

namespace kvsim::python {
namespace {

// The capacity options a caller gave; empty = the CLI's default (CapacityQuery's, and the
// engine's: EngineQuery's).
struct CapacityArgs {
  std::optional<std::string> dtype;
  std::optional<std::string> weight_dtype;
  std::optional<uint64_t> batch;
  std::optional<uint64_t> seq_len;
  std::optional<uint32_t> block_size;
  std::optional<uint32_t> tp;
  std::optional<uint64_t> kv_budget_bytes;
  std::optional<uint32_t> quant_group;
  // The engine whose memory rule sizes the budget (`kvsim capacity --engine ...`).
  std::optional<std::string> engine;
  std::optional<std::string> engine_version;
  std::optional<double> mem_fraction;
  std::optional<uint64_t> max_model_len;
  std::optional<uint32_t> max_num_batched_tokens;
  std::optional<uint32_t> max_num_seqs;
  std::optional<bool> cuda_graph_memory;  // true = subtract, false = ignore
  std::optional<bool> enforce_eager;
  std::optional<std::string> compile_cache;  // "cold" | "warm"
  std::optional<std::string> entry_point;
  std::optional<uint64_t> device_used_bytes;
};

CapacityQuery capacity_query(const CapacityArgs& a, const ModelSpec& model) {
  CapacityQuery q;
  if (a.dtype) q.kv.dtype = value_or_raise(parse_dtype(*a.dtype));
  std::optional<DType> weight_dtype;
  if (a.weight_dtype) weight_dtype = value_or_raise(parse_dtype(*a.weight_dtype));
  q.weight_dtype = run_weight_dtype(model, weight_dtype);
  q.batch = a.batch.value_or(q.batch);
  q.seq_len = a.seq_len.value_or(q.seq_len);
  q.block_size = a.block_size.value_or(q.block_size);
  q.tp = a.tp.value_or(q.tp);
  q.kv.quant_group = a.quant_group.value_or(q.kv.quant_group);
  // As the CLI: without an engine a hybrid model's windows still take the option's chunk.
  q.max_num_batched_tokens = a.max_num_batched_tokens.value_or(q.max_num_batched_tokens);
  q.kv_budget_bytes = a.kv_budget_bytes;
  return q;
}

EngineQuery engine_query(const CapacityArgs& a) {
  EngineQuery e;
  if (a.engine) e.kind = value_or_raise(parse_engine_kind(*a.engine));
  if (a.engine_version) e.version = value_or_raise(parse_engine_version(*a.engine_version));
  if (a.entry_point) e.entry_point = value_or_raise(parse_entry_point(*a.entry_point));
  e.memory_utilization = a.mem_fraction;
  e.max_model_len = a.max_model_len.value_or(e.max_model_len);
  e.max_num_batched_tokens = a.max_num_batched_tokens.value_or(e.max_num_batched_tokens);
  e.max_num_seqs = a.max_num_seqs.value_or(e.max_num_seqs);
  e.cuda_graph_memory = a.cuda_graph_memory;
  e.enforce_eager = a.enforce_eager.value_or(e.enforce_eager);
  if (a.compile_cache) e.warm_compile_cache = value_or_raise(parse_compile_cache(*a.compile_cache));
  e.device_used_bytes = a.device_used_bytes.value_or(e.device_used_bytes);
  return e;
}

// `kvsim capacity --json`: one object, or an array with several devices.
std::string capacity_json(const std::string& model_name, const std::string& device_spec,
                          const CapacityArgs& args) {
  const ModelSpec model = value_or_raise(load_model(model_name));
  const CapacityQuery query = capacity_query(args, model);
  const EngineQuery engine = engine_query(args);
  const std::vector<DeviceSpec> devices = value_or_raise(load_device_list(device_spec));
  const std::vector<CapacityRow> rows =
      value_or_raise(plan_capacity_rows(model, devices, query, engine));
  return capacity_rows_json(model, rows).dump();
}

// The options of capacity_json, passed by keyword, every one (kvsim/__init__.py passes all,
// None for the CLI's default). A value of the wrong Python type is a TypeError naming it.
CapacityArgs capacity_args(const py::kwargs& kw) {
  CapacityArgs a;
  const auto get = [&kw](const char* name, auto* field) {
    if (!kw.contains(name)) throw py::type_error(std::string("missing option ") + name);
    py::object value = kw[name];
    if (value.is_none()) return;
    try {
      *field = value.cast<typename std::decay_t<decltype(*field)>::value_type>();
    } catch (const py::cast_error&) {
      throw py::type_error(std::string("capacity(): ") + name + " has the wrong type (" +
                           std::string(py::str(value.get_type().attr("__name__"))) + ")");
    }
  };
  get("dtype", &a.dtype);
  get("weight_dtype", &a.weight_dtype);
  get("batch", &a.batch);
  get("seq_len", &a.seq_len);
  get("block_size", &a.block_size);
  get("tp", &a.tp);
  get("kv_budget_bytes", &a.kv_budget_bytes);
  get("quant_group", &a.quant_group);
  get("engine", &a.engine);
  get("engine_version", &a.engine_version);
  get("mem_fraction", &a.mem_fraction);
  get("max_model_len", &a.max_model_len);
  get("max_num_batched_tokens", &a.max_num_batched_tokens);
  get("max_num_seqs", &a.max_num_seqs);
  get("cuda_graph_memory", &a.cuda_graph_memory);
  get("enforce_eager", &a.enforce_eager);
  get("compile_cache", &a.compile_cache);
  get("entry_point", &a.entry_point);
  get("device_used_bytes", &a.device_used_bytes);
  return a;
}

using Locate = std::tuple<uint64_t, uint32_t, uint32_t>;  // token, head, dim

// `kvsim layout --json`.
std::string layout_json(const std::string& model_name, const std::string& device_name,
                        const std::optional<std::string>& dtype_name,
                        std::optional<uint32_t> block_size, const std::optional<Locate>& locate) {
  const ModelSpec model = value_or_raise(load_model(model_name));
  std::optional<DeviceSpec> device;
  if (!device_name.empty()) device = value_or_raise(load_device(device_name));
  const DType dtype = dtype_name ? value_or_raise(parse_dtype(*dtype_name)) : DType::kFp16;
  const BlockLayout layout =
      model_block_layout(model, device ? &*device : nullptr, dtype, block_size.value_or(0));
  std::optional<LayoutPick> pick;
  if (locate) {
    pick = LayoutPick{std::get<0>(*locate), std::get<1>(*locate), std::get<2>(*locate)};
    raise_if_error(check_layout_pick(*pick, layout));
  }
  return layout_to_json(model, dtype, layout, pick).dump();
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
      [](const std::string& model, const std::string& device, const py::kwargs& kw) {
        return capacity_json(model, device, capacity_args(kw));
      },
      py::arg("model"), py::arg("device"));
  m.def("layout_json", &layout_json, py::arg("model"), py::arg("device"), py::arg("dtype"),
        py::arg("block_size"), py::arg("locate"));
  def_runs(m);
  m.def("presets", &preset_lists, "Embedded preset names by kind (the folders under presets/).");
}
