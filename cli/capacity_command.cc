// kvsim capacity: KV bytes per token, block and request, the KV budget on a device, and how
// many blocks, tokens and sequences fit. Text shows the formulas with numbers; --json one
// object (or an array with several devices).
#include <cstdio>
#include <memory>
#include <sstream>

#include "cli/command.h"
#include "cli/json_util.h"
#include "cli/model_options.h"
#include "core/capacity_report.h"
#include "core/presets.h"

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

StatusOr<std::vector<DeviceSpec>> resolve_devices(const std::string& spec) {
  std::vector<DeviceSpec> devices;
  std::vector<std::string> names;
  if (spec == "all") {
    names = preset_names(PresetKind::kDevice);
  } else {
    std::stringstream list(spec);
    for (std::string name; std::getline(list, name, ',');) {
      if (!name.empty()) names.push_back(name);
    }
  }
  for (const std::string& name : names) {
    KVSIM_ASSIGN_OR_RETURN(DeviceSpec device, load_device(name));
    devices.push_back(std::move(device));
  }
  return devices;
}

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

nlohmann::json to_json(const ModelSpec& model, const DeviceSpec* device, const CapacityQuery& query,
                       const CapacityResult& r) {
  nlohmann::json out;
  out["model"] = model.name;
  out["device"] = device != nullptr ? nlohmann::json(device->name) : nlohmann::json(nullptr);
  out["kv_dtype"] = dtype_name(query.kv.dtype);
  out["weight_dtype"] = dtype_name(query.weight_dtype);
  out["quant_group"] = query.kv.quant_group;
  out["tp"] = query.tp;
  out["block_size"] = r.block_size;
  out["batch"] = query.batch;
  out["seq_len"] = r.seq_len;
  out["tokens_kept_per_seq"] = r.tokens_kept_per_seq;
  out["kv_layout"] = r.nz ? "nz" : "nd";
  out["kv_bytes_per_token"] = json_bytes_from_bits(r.kv_bits_per_token);
  out["kv_bytes_per_token_per_device"] = json_bytes_from_bits(r.kv_bits_per_token_per_device);
  out["kv_bytes_per_block"] = r.kv_bytes_per_block;
  out["kv_bytes_per_block_nd"] = r.kv_bytes_per_block_nd;
  out["kv_bytes_for_request"] = r.kv_bytes_for_request;
  out["weight_bytes"] = json_or_null(r.weight_bytes);
  out["reserve_bytes"] = json_or_null(r.reserve_bytes);
  out["kv_budget_bytes"] = json_or_null(r.kv_budget_bytes);
  out["num_blocks"] = json_or_null(r.num_blocks);
  out["num_usable_blocks"] = json_or_null(r.num_usable_blocks);
  out["max_tokens"] = json_or_null(r.max_tokens);
  out["max_batch_at_seq_len"] = json_or_null(r.max_batch_at_seq_len);
  out["max_seq_len_at_batch"] = json_or_null(r.max_seq_len_at_batch);
  out["layer_groups"] = layer_groups_json(r.groups);
  if (r.hybrid) {
    out["kv_cache_groups"] = kv_cache_plan_json(*r.hybrid);
    out["blocks_per_seq"] = r.blocks_per_seq;
    out["max_num_batched_tokens"] = query.max_num_batched_tokens;
  }
  if (r.nz && !r.hybrid) {
    out["nz_padding_fraction"] =
        block_layout(r.shape_per_device, r.block_size, r.nz_width).nz_padding_fraction();
  }
  return out;
}

int run_capacity(const CapacityOptions& o) {
  auto model = resolve_model(o.model);
  if (!model.is_ok()) return report_error(model.status());
  auto query = make_query(o);
  if (!query.is_ok()) return report_error(query.status());
  auto devices = resolve_devices(o.device);
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
      out.push_back(to_json(*model, row.device, *query, row.result));
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
