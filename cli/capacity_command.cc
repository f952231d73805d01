// kvsim capacity: KV bytes per token, block and request, the KV budget an engine leaves on a
// device (core/engine/engine_memory.h, term by term), and how many blocks, tokens and sequences
// fit. Text shows the formulas with numbers; --json one object (or an array with several devices).
// --deployment FILE takes model, device, TP, engine and the measured set-aside from a file
// that `kvsim calibrate --from-log` wrote.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cli/engine_options.h"
#include "cli/model_options.h"
#include "cli/parallel_options.h"
#include "cli/speculative_options.h"
#include "core/engine/deployment.h"
#include "core/report/capacity_json.h"
#include "core/report/capacity_report.h"
#include "simulator/setup/speculative_setup.h"

namespace kvsim::cli {
namespace {

struct CapacityOptions {
  ModelOptions model;
  std::string device;  // name, path, comma-separated list, or "all"
  std::string dtype = "fp16";
  std::string weight_dtype;  // empty: the model's own (run_weight_dtype)
  uint64_t batch = 1;
  uint64_t seq_len = 0;
  uint32_t block_size = 0;
  uint32_t tp = 1;
  ParallelOptions parallel;  // the layout's rest (core/engine/parallel_layout.h)
  std::optional<uint64_t> kv_budget_bytes;
  uint32_t quant_group = 0;
  EngineOptions engine;            // --max-num-batched-tokens among them (also the hybrid windows')
  std::string deployment;          // a deployment file; supplies model, device, TP and engine
  SpeculativeOptions speculative;  // a drafter's weights and KV beside the model's
  bool json = false;
};

// What one run of the command asks: the model, the devices and the two queries.
struct CapacityInputs {
  ModelSpec model;
  std::vector<DeviceSpec> devices;
  CapacityQuery query;
  EngineQuery engine;
};

StatusOr<CapacityQuery> make_query(const CapacityOptions& o, const ModelSpec& model) {
  CapacityQuery query;
  KVSIM_ASSIGN_OR_RETURN(query.kv.dtype, parse_dtype(o.dtype));
  KVSIM_ASSIGN_OR_RETURN(query.weight_dtype, resolve_weight_dtype(o.weight_dtype, model));
  query.kv.quant_group = o.quant_group;
  query.batch = o.batch;
  query.seq_len = o.seq_len;
  query.block_size = o.block_size;
  query.tp = o.tp;
  query.dp = o.parallel.dp;
  query.ep = o.parallel.ep;
  query.pp = o.parallel.pp;
  query.kv_budget_bytes = o.kv_budget_bytes;
  // Without an engine (--kv-budget-bytes) a hybrid model's windows still take the flag's chunk;
  // with one, core/engine/capacity_plan.h sets the engine's resolved value.
  if (o.engine.max_num_batched_tokens > 0) {
    query.max_num_batched_tokens = o.engine.max_num_batched_tokens;
  }
  return query;
}

StatusOr<CapacityInputs> inputs_from_flags(const CapacityOptions& o) {
  CapacityInputs in;
  KVSIM_ASSIGN_OR_RETURN(in.model, resolve_model(o.model));
  KVSIM_ASSIGN_OR_RETURN(in.query, make_query(o, in.model));
  KVSIM_ASSIGN_OR_RETURN(in.devices, load_device_list(o.device));
  KVSIM_ASSIGN_OR_RETURN(in.engine, resolve_engine_query(o.engine));
  return in;
}

// The deployment's model, device, TP, dtypes, block size and engine; --batch, --seq-len and
// --quant-group still apply.
StatusOr<CapacityInputs> inputs_from_deployment(const CapacityOptions& o) {
  if (!o.model.model.empty() || !o.device.empty()) {
    return Status::invalid_argument(
        "--deployment gives the model and device; drop --model and --device");
  }
  KVSIM_ASSIGN_OR_RETURN(Deployment d, load_deployment(o.deployment));
  CapacityInputs in;
  KVSIM_ASSIGN_OR_RETURN(in.model, deployment_model(d));
  KVSIM_ASSIGN_OR_RETURN(DeviceSpec device, deployment_device(d));
  in.devices.push_back(std::move(device));
  KVSIM_ASSIGN_OR_RETURN(in.query, make_query(o, in.model));
  in.query.kv.dtype = d.kv_dtype;
  in.query.weight_dtype = d.weight_dtype;
  in.query.tp = d.tp;
  in.query.block_size = d.block_size;
  in.engine = d.engine;
  return in;
}

// With --speculative: the model with the drafter's weights and KV layers added, as the
// simulator sizes its pool (simulator/setup/speculative_setup.h), named for both.
Status add_drafter(const SpeculativeOptions& o, ModelSpec* model) {
  KVSIM_ASSIGN_OR_RETURN(sim::SpeculativeSection section, speculative_section(o));
  KVSIM_ASSIGN_OR_RETURN(ModelSpec draft, sim::draft_cost_model_spec(*model, section));
  ModelSpec both = sim::draft_memory_model(*model, draft, section);
  both.name = model->name + " + " + draft.name;
  *model = std::move(both);
  return Status::ok();
}

int run_capacity(const CapacityOptions& o) {
  auto in = o.deployment.empty() ? inputs_from_flags(o) : inputs_from_deployment(o);
  if (!in.is_ok()) return report_error(in.status());
  if (o.speculative.given()) {
    const Status drafted = add_drafter(o.speculative, &in->model);
    if (!drafted.is_ok()) return report_error(drafted);
  }
  auto rows = plan_capacity_rows(in->model, in->devices, in->query, in->engine);
  if (!rows.is_ok()) return report_error(rows.status());
  if (o.json) {
    std::printf("%s\n", capacity_rows_json(in->model, *rows).dump(2).c_str());
  } else if (rows->size() == 1) {
    std::printf("%s", capacity_report(in->model, rows->front().device, rows->front().plan).c_str());
  } else {
    std::printf("%s", capacity_table(in->model, *rows).c_str());
  }
  return kExitOk;
}

}  // namespace

void register_capacity_command(CLI::App& app, CommandFn* chosen) {
  auto options = std::make_shared<CapacityOptions>();
  CLI::App* command = app.add_subcommand(
      "capacity", "KV bytes per token/block/request and how many blocks, tokens, sequences fit");
  add_model_options(command, &options->model);
  command->add_option("--device", options->device,
                      "device preset or YAML file; a comma-separated list, or 'all'");
  command->add_option("--kv-dtype,--dtype", options->dtype,
                      "KV dtype: fp32 fp16 bf16 fp8 int8 int4 (--dtype: the old name)");
  command->add_option("--weight-dtype", options->weight_dtype,
                      "weight dtype (default: a config.json's bfloat16 or float16, else fp16)");
  command->add_option("--batch", options->batch, "sequences in the request")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  command
      ->add_option("--seq-len", options->seq_len,
                   "tokens per sequence (default: --max-model-len, a deployment's, else the "
                   "model's max positions)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  command
      ->add_option("--block-size", options->block_size, "tokens per block (default: the device's)")
      ->check(CLI::Range(1u, 1u << 20));
  command->add_option("--tp", options->tp, "tensor-parallel devices (of one pipeline stage)")
      ->check(CLI::Range(1u, 4096u));
  add_parallel_options(command, &options->parallel);
  command->add_option("--kv-budget-bytes", options->kv_budget_bytes,
                      "KV budget per device in bytes (overrides the engine's budget)");
  add_engine_options(command, &options->engine);
  command->add_option("--deployment", options->deployment,
                      "deployment file from kvsim calibrate --from-log (model, device, TP, "
                      "engine, measured set-aside)");
  command
      ->add_option("--quant-group", options->quant_group,
                   "elements per fp16 scale+zero group (0 = none)")
      ->check(CLI::Range(0u, 1u << 20));
  add_speculative_options(command, &options->speculative);
  command->add_flag("--json", options->json, "print JSON");
  command->callback([options, chosen] { *chosen = [options] { return run_capacity(*options); }; });
}

}  // namespace kvsim::cli
