// kvsim cost: one iteration's time, operator by operator — the time, whether it is compute- or
// memory-bound, its share and the formula with its numbers — for a batch written as request
// groups (simulator/cost/batch_spec.h). The total is the iteration time the simulator uses for
// the same batch with the same cost model (make_cost_model), to the nanosecond.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "cli/engine_options.h"
#include "cli/model_options.h"
#include "cli/parallel_options.h"
#include "cli/speculative_options.h"
#include "core/base/data_dir.h"
#include "core/engine/capacity.h"
#include "core/engine/engine_memory.h"
#include "core/model/load_spec.h"
#include "simulator/cost/batch_spec.h"
#include "simulator/cost/execution_profile.h"
#include "simulator/cost/layer_kind_costs.h"
#include "simulator/cost/make_cost_model.h"
#include "simulator/setup/speculative_setup.h"

namespace kvsim::cli {
namespace {

struct CostOptions {
  ModelOptions model;
  std::string device;
  uint32_t tp = 1;
  ParallelOptions parallel;  // --dp --ep: one rank of the layout (core/engine/parallel_layout.h)
  std::string weight_dtype;  // empty: the model's own (resolve_weight_dtype)
  std::string kv_dtype = "fp16";
  uint32_t block_size = 0;
  std::string batch;
  std::string kind = "operators";
  std::string fit;
  double expert_imbalance = 1.0;  // cost_model.expert_imbalance (ep > 1)
  std::string cuda_graphs = "engine";
  std::string engine = "vllm";  // whose execution profile (simulator/cost/execution_profile.h)
  std::string engine_version;   // empty: the newest kvsim models
  uint32_t max_num_seqs = 0;    // the engine's graph capture size follows it; 0: its default
  bool enforce_eager = false;
  std::string calibration;
  std::string profiles;
  SpeculativeOptions speculative;
  bool json = false;
  // One pipeline stage of the layout (kvsim cost times no stages).
  ParallelLayout layout() const { return {tp, parallel.dp, parallel.ep, 1}; }
};

// A speculative drafter's passes after the batch (simulator/engine/speculation.h draft_ns):
// one over the batch, then k - 1 of one token per sequence.
struct DraftCost {
  std::string method;
  std::string model;  // the model its passes are costed as
  int64_t first_ns = 0;
  uint32_t later_passes = 0;
  int64_t later_ns = 0;  // one later pass
  int64_t total_ns = 0;
};

StatusOr<DraftCost> draft_cost(const CostOptions& o, const sim::CostModelConfig& config,
                               const ModelSpec& target, const DeviceSpec& device,
                               const CapacityQuery& query, DType weight_dtype,
                               const sim::ExecutionProfile& profile, const sim::BatchShape& batch,
                               const sim::BatchShape& draft_shape) {
  KVSIM_ASSIGN_OR_RETURN(sim::SpeculativeSection section, speculative_section(o.speculative));
  DraftCost out;
  out.method = std::string(sim::speculative_method_name(section.config.method));
  KVSIM_ASSIGN_OR_RETURN(ModelSpec draft, sim::draft_cost_model_spec(target, section));
  out.model = draft.name;
  if (!section.config.runs_draft_model() || draft_shape.empty()) return out;
  KVSIM_ASSIGN_OR_RETURN(CapacityResult draft_capacity, compute_capacity(draft, &device, query));
  KVSIM_ASSIGN_OR_RETURN(auto model, sim::make_cost_model(config, draft, device, draft_capacity,
                                                          weight_dtype, o.tp, profile));
  const uint32_t k = section.config.num_speculative_tokens;
  out.first_ns = sim::draft_first_pass_ns(*model, batch);
  out.later_passes = k - 1;
  out.later_ns = model->iteration_ns(draft_shape);
  out.total_ns = sim::draft_ns(*model, batch, draft_shape, k);
  return out;
}

StatusOr<sim::CostModelConfig> cost_config(const CostOptions& o) {
  sim::CostModelConfig config;
  KVSIM_ASSIGN_OR_RETURN(config.kind, sim::parse_cost_model_kind(o.kind));
  KVSIM_ASSIGN_OR_RETURN(config.cuda_graphs, sim::parse_cuda_graphs(o.cuda_graphs));
  config.fit = o.fit;
  config.expert_imbalance = o.expert_imbalance;
  config.calibration = resolve_data_path(o.calibration);
  config.profiles = resolve_data_path(o.profiles);
  return config;
}

// The engine whose execution profile runs the batch (the memory options stay at their defaults).
StatusOr<EngineQuery> cost_engine(const CostOptions& o) {
  EngineOptions engine;
  engine.engine = o.engine;
  engine.version = o.engine_version;
  engine.max_num_seqs = o.max_num_seqs;
  engine.enforce_eager = o.enforce_eager;
  return resolve_engine_query(engine);
}

nlohmann::json to_json(const CostOptions& o, DType weight_dtype, const sim::CostModel& model,
                       const sim::ExecutionProfile& profile, const sim::BatchShape& shape,
                       const sim::CostBreakdown& cost) {
  nlohmann::json out;
  out["model"] = o.model.model;
  out["device"] = o.device;
  out["tp"] = o.tp;
  out["dp"] = o.parallel.dp;
  out["ep"] = o.parallel.ep;
  out["weight_dtype"] = dtype_name(weight_dtype);
  out["cost_model"] = model.name();
  out["engine"] = profile.engine;
  out["execution_rules"] = profile.rules;
  out["batch"] = o.batch;
  out["shape"] = {{"num_seqs", shape.num_seqs},
                  {"new_tokens", shape.new_tokens},
                  {"prefill_chunks", shape.num_prefill_chunks},
                  {"prefill_tokens", shape.prefill_tokens},
                  {"decodes", shape.num_decodes()},
                  {"context_tokens", shape.context_tokens},
                  {"sampled_tokens", shape.sampled_tokens}};
  nlohmann::json ops = nlohmann::json::array();
  for (const sim::OperatorTime& op : cost.operators) {
    ops.push_back({{"name", op.name},
                   {"count", op.count},
                   {"time_s", op.time_s},
                   {"share", cost.total_s > 0 ? op.time_s / cost.total_s : 0.0},
                   {"bound", op.bound},
                   {"flops", op.flops},
                   {"bytes", op.bytes},
                   {"formula", op.formula}});
    if (!op.kernel.empty()) ops.back()["mode"] = op.kernel;  // an EP all-to-all's DeepEP mode
  }
  out["operators"] = std::move(ops);
  out["total_s"] = cost.total_s;
  out["iteration_ns"] = model.iteration_ns(shape);
  return out;
}

void add_draft_json(const DraftCost& draft, int64_t iteration_ns, nlohmann::json* out) {
  (*out)["draft"] = {{"method", draft.method},          {"model", draft.model},
                     {"first_pass_ns", draft.first_ns}, {"later_passes", draft.later_passes},
                     {"later_pass_ns", draft.later_ns}, {"total_ns", draft.total_ns}};
  (*out)["step_ns"] = iteration_ns + draft.total_ns;
}

void print_draft(const DraftCost& draft, int64_t iteration_ns) {
  std::printf(
      "draft     %s, costed as %s: one pass over the batch %.4f ms + %u x one token a "
      "sequence %.4f ms = %.4f ms\n",
      draft.method.c_str(), draft.model.c_str(), static_cast<double>(draft.first_ns) * 1e-6,
      draft.later_passes, static_cast<double>(draft.later_ns) * 1e-6,
      static_cast<double>(draft.total_ns) * 1e-6);
  std::printf("step      %.4f ms verification + %.4f ms drafts = %.4f ms (the simulator's step)\n",
              static_cast<double>(iteration_ns) * 1e-6, static_cast<double>(draft.total_ns) * 1e-6,
              static_cast<double>(iteration_ns + draft.total_ns) * 1e-6);
}

void print_text(const CostOptions& o, DType weight_dtype, const sim::CostModel& model,
                const sim::ExecutionProfile& profile, const sim::BatchShape& shape,
                const sim::CostBreakdown& cost) {
  std::printf("%s on %u x %s (%s weights), %s\nbatch %s: %s\n", o.model.model.c_str(), o.tp,
              o.device.c_str(), std::string(dtype_name(weight_dtype)).c_str(), model.name().c_str(),
              o.batch.c_str(), sim::describe_batch(shape).c_str());
  const ParallelLayout layout = o.layout();
  if (!layout.tp_only()) {
    std::printf("layout %s: one rank, its DP rank's batch (every DP rank carrying one alike)\n",
                describe_parallel_layout(layout).c_str());
  }
  if (o.kind == "operators") {
    std::printf("engine %s:\n", profile.engine.c_str());
    for (const std::string& rule : profile.rules) std::printf("  %s\n", rule.c_str());
  }
  std::printf("\n");
  // The name column: 22 wide, wider for a longer name (a hybrid's "attention_prefill_sliding").
  int width = 22;
  for (const sim::OperatorTime& op : cost.operators) {
    width = std::max(width, static_cast<int>(op.name.size()));
  }
  std::printf("%-*s %6s %11s %7s  %-12s %s\n", width, "operator", "count", "time (ms)", "share",
              "bound", "formula (count x one instance)");
  for (const sim::OperatorTime& op : cost.operators) {
    std::printf("%-*s %6llu %11.4f %6.1f%%  %-12s %s\n", width, op.name.c_str(),
                static_cast<unsigned long long>(op.count), op.time_s * 1e3,
                cost.total_s > 0 ? 100 * op.time_s / cost.total_s : 0.0, op.bound.c_str(),
                op.formula.c_str());
  }
  std::printf("%-*s %6s %11.4f %6.1f%%  (%lld ns, the simulator's iteration time)\n", width,
              "iteration", "", cost.total_s * 1e3, 100.0,
              static_cast<long long>(model.iteration_ns(shape)));
}

int run_cost(const CostOptions& o) {
  auto model = resolve_model(o.model);
  if (!model.is_ok()) return report_error(model.status());
  auto device = load_device(o.device);
  if (!device.is_ok()) return report_error(device.status());
  CapacityQuery query;
  auto kv_dtype = parse_dtype(o.kv_dtype);
  if (!kv_dtype.is_ok()) return report_error(kv_dtype.status());
  auto weight_dtype = resolve_weight_dtype(o.weight_dtype, *model);
  if (!weight_dtype.is_ok()) return report_error(weight_dtype.status());
  query.kv.dtype = *kv_dtype;
  query.weight_dtype = *weight_dtype;
  query.block_size = o.block_size;
  query.tp = o.tp;
  query.dp = o.parallel.dp;
  query.ep = o.parallel.ep;
  auto capacity = compute_capacity(*model, &*device, query);
  if (!capacity.is_ok()) return report_error(capacity.status());
  auto window = sim::cost_window_tokens(*model);
  if (!window.is_ok()) return report_error(window.status());
  sim::BatchShape draft_shape;
  auto shape =
      sim::parse_batch_spec(o.batch, *window, o.speculative.given() ? &draft_shape : nullptr);
  if (!shape.is_ok()) return report_error(shape.status());
  auto config = cost_config(o);
  if (!config.is_ok()) return report_error(config.status());
  auto engine = cost_engine(o);
  if (!engine.is_ok()) return report_error(engine.status());
  const sim::ExecutionProfile profile = sim::with_cuda_graphs(
      sim::execution_profile(*engine, *device, o.tp, o.max_num_seqs), config->cuda_graphs);
  auto cost_model = sim::make_cost_model(*config, *model, *device, *capacity, *weight_dtype, o.tp,
                                         profile, o.layout());
  if (!cost_model.is_ok()) return report_error(cost_model.status());
  const sim::CostBreakdown cost = (*cost_model)->explain(*shape);
  std::optional<DraftCost> draft;
  if (o.speculative.given()) {
    auto made =
        draft_cost(o, *config, *model, *device, query, *weight_dtype, profile, *shape, draft_shape);
    if (!made.is_ok()) return report_error(made.status());
    draft = *std::move(made);
  }
  const int64_t iteration_ns = (*cost_model)->iteration_ns(*shape);
  if (o.json) {
    nlohmann::json out = to_json(o, *weight_dtype, **cost_model, profile, *shape, cost);
    if (draft) add_draft_json(*draft, iteration_ns, &out);
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    print_text(o, *weight_dtype, **cost_model, profile, *shape, cost);
    if (draft) print_draft(*draft, iteration_ns);
  }
  return kExitOk;
}

}  // namespace

void register_cost_command(CLI::App& app, CommandFn* chosen) {
  auto options = std::make_shared<CostOptions>();
  CLI::App* command = app.add_subcommand(
      "cost", "one iteration's time operator by operator (bound, share, formula) for a batch");
  add_model_options(command, &options->model);
  command->add_option("--device", options->device, "device preset or YAML file")->required();
  command->add_option("--tp", options->tp, "tensor-parallel devices")->check(CLI::Range(1u, 4096u));
  add_parallel_options(command, &options->parallel, /*pp=*/false);
  command->add_option("--weight-dtype", options->weight_dtype,
                      "weight dtype: fp16 bf16 fp8 int8 int4 (default: a config.json's bfloat16 "
                      "or float16, else fp16)");
  command->add_option("--kv-dtype", options->kv_dtype, "KV dtype");
  command
      ->add_option("--block-size", options->block_size, "tokens per block (default: the device's)")
      ->check(CLI::Range(1u, 1u << 20));
  command
      ->add_option("--batch", options->batch,
                   "request groups, comma-separated: decode:NxCONTEXT, prefill:NxNEW[+CACHED], "
                   "chunk:NxNEW[+CACHED] (a chunk that does not end its prompt), "
                   "verify:Nx(1+DRAFTS)[+CACHED] (speculative steps)")
      ->required();
  command->add_option("--kind", options->kind, "cost model: operators roofline profile table");
  command->add_option("--fit", options->fit, "operators: built-in fit (a100 h100 h200 ascend)");
  command
      ->add_option("--expert-imbalance", options->expert_imbalance,
                   "operators, ep > 1: the slowest expert rank's load over uniform routing's "
                   "expected maximum (an EPLB-measured skew; default 1)")
      ->check(CLI::Range(1.0, 100.0));
  command->add_option("--cuda-graphs", options->cuda_graphs,
                      "operators: engine (its execution profile) none decode all");
  command->add_option("--engine", options->engine,
                      "whose execution profile: vllm (V1) vllm-v0 vllm-ascend sglang mindie");
  command->add_option("--engine-version", options->engine_version,
                      "engine release, e.g. 0.15.1 (default: the newest kvsim models)");
  command->add_option("--max-num-seqs", options->max_num_seqs,
                      "the engine's sequences per batch (its graph capture size follows it)");
  command->add_flag("--enforce-eager", options->enforce_eager, "no CUDA graphs");
  command->add_option("--calibration", options->calibration,
                      "operators: calibration YAML (kvsim calibrate); table: the CSV");
  command->add_option("--profiles", options->profiles, "profile: a Vidur profile folder");
  add_speculative_options(command, &options->speculative);
  command->add_flag("--json", options->json, "print JSON");
  command->callback([options, chosen] { *chosen = [options] { return run_cost(*options); }; });
}

}  // namespace kvsim::cli
