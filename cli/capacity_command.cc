// kvsim capacity: KV bytes per token, block and request, the KV budget on a device, and how
// many blocks, tokens and sequences fit. Text shows the formulas with numbers; --json one
// object (or an array with several devices).
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cli/model_options.h"
#include "core/capacity_json.h"
#include "core/capacity_report.h"

namespace kvsim::cli {
namespace {

struct CapacityOptions {
  ModelOptions model;
  std::string device;  // name, path, comma-separated list, or "all"
  std::string dtype = "fp16";
  std::string weight_dtype = "fp16";
  uint64_t batch = 1;
  uint64_t seq_len = 0;
  double mem_fraction = 0.9;
  uint32_t block_size = 0;
  uint32_t tp = 1;
  std::optional<uint64_t> kv_budget_bytes;
  std::optional<uint64_t> reserve_bytes;
  uint32_t quant_group = 0;
  uint64_t max_num_batched_tokens = 8192;
  bool json = false;
};

StatusOr<CapacityQuery> make_query(const CapacityOptions& o) {
  CapacityQuery query;
  KVSIM_ASSIGN_OR_RETURN(query.kv.dtype, parse_dtype(o.dtype));
  KVSIM_ASSIGN_OR_RETURN(query.weight_dtype, parse_dtype(o.weight_dtype));
  query.kv.quant_group = o.quant_group;
  query.batch = o.batch;
  query.seq_len = o.seq_len;
  query.mem_fraction = o.mem_fraction;
  query.block_size = o.block_size;
  query.tp = o.tp;
  query.kv_budget_bytes = o.kv_budget_bytes;
  query.reserve_bytes = o.reserve_bytes;
  query.max_num_batched_tokens = o.max_num_batched_tokens;
  return query;
}

int run_capacity(const CapacityOptions& o) {
  auto model = resolve_model(o.model);
  if (!model.is_ok()) return report_error(model.status());
  auto query = make_query(o);
  if (!query.is_ok()) return report_error(query.status());
  auto devices = load_device_list(o.device);
  if (!devices.is_ok()) return report_error(devices.status());

  std::vector<CapacityRow> rows;
  if (devices->empty()) rows.push_back({nullptr, {}});
  for (const DeviceSpec& device : *devices) rows.push_back({&device, {}});
  for (CapacityRow& row : rows) {
    auto result = compute_capacity(*model, row.device, *query);
    if (!result.is_ok()) return report_error(result.status());
    row.result = *result;
  }
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const CapacityRow& row : rows)
      out.push_back(capacity_to_json(*model, row.device, *query, row.result));
    std::printf("%s\n", (rows.size() == 1 ? out[0] : out).dump(2).c_str());
  } else if (rows.size() == 1) {
    std::printf("%s", capacity_report(*model, rows[0].device, *query, rows[0].result).c_str());
  } else {
    std::printf("%s", capacity_table(*model, *query, rows).c_str());
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
  command->add_option("--dtype", options->dtype, "KV dtype: fp32 fp16 bf16 fp8 int8 int4");
  command->add_option("--weight-dtype", options->weight_dtype, "weight dtype");
  command->add_option("--batch", options->batch, "sequences in the request")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  command
      ->add_option("--seq-len", options->seq_len,
                   "tokens per sequence (default: the model's max positions)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  command
      ->add_option("--mem-fraction", options->mem_fraction,
                   "share of device memory the engine may use")
      ->check(CLI::Range(1e-6, 1.0));
  command
      ->add_option("--block-size", options->block_size, "tokens per block (default: the device's)")
      ->check(CLI::Range(1u, 1u << 20));
  command->add_option("--tp", options->tp, "tensor-parallel devices")->check(CLI::Range(1u, 4096u));
  command->add_option("--kv-budget-bytes", options->kv_budget_bytes,
                      "KV budget per device in bytes (overrides the memory formula)");
  command->add_option("--reserve-bytes", options->reserve_bytes,
                      "activation reserve per device in bytes (overrides the formula)");
  command
      ->add_option("--quant-group", options->quant_group,
                   "elements per fp16 scale+zero group (0 = none)")
      ->check(CLI::Range(0u, 1u << 20));
  command
      ->add_option("--max-num-batched-tokens", options->max_num_batched_tokens,
                   "hybrid models: the chunked-prefill budget a sliding-window group's blocks "
                   "cover (vLLM's max_num_batched_tokens)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  command->add_flag("--json", options->json, "print JSON");
  command->callback([options, chosen] { *chosen = [options] { return run_capacity(*options); }; });
}

}  // namespace kvsim::cli
