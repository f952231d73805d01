#include "core/report/capacity_json.h"

#include <sstream>
#include <utility>

#include "core/config/presets.h"
#include "core/model/kv_shape.h"
#include "core/model/load_spec.h"

namespace kvsim {
nlohmann::json json_or_null(const std::optional<uint64_t>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json json_bytes_from_bits(uint64_t bits) {
  if (bits % 8 == 0) return nlohmann::json(bits / 8);
  return nlohmann::json(static_cast<double>(bits) / 8.0);
}

nlohmann::json layer_groups_json(const std::vector<LayerGroupBytes>& groups) {
  nlohmann::json out = nlohmann::json::array();
  for (const LayerGroupBytes& b : groups) {
    nlohmann::json group;
    group["kind"] = layer_kind_name(b.group.kind);
    group["num_layers"] = b.group.num_layers;
    if (b.group.kind == LayerKind::kSlidingWindow) group["window_tokens"] = b.group.window_tokens;
    group["kv_bytes_per_token"] = json_bytes_from_bits(b.bits_per_token);
    group["kv_bytes_per_token_per_device"] = json_bytes_from_bits(b.bits_per_token_per_device);
    group["state_bytes_per_seq"] =
        json_bytes_from_bits(b.state_bits_per_layer * b.group.num_layers);
    group["state_bytes_per_seq_per_device"] =
        json_bytes_from_bits(b.state_bits_per_layer_per_device * b.group.num_layers);
    out.push_back(group);
  }
  return out;
}

nlohmann::json kv_cache_plan_json(const KvCachePlan& plan) {
  nlohmann::json out;
  out["num_groups"] = plan.groups.size();
  out["layers_per_group"] = plan.layers_per_group;
  out["num_padding_layers"] = plan.num_padding_layers;
  out["page_bytes"] = plan.page_bytes;
  out["bytes_per_block"] = plan.bytes_per_block();
  out["uniform_type"] = plan.uniform_type;
  nlohmann::json specs = nlohmann::json::array();
  for (size_t i = 0; i < plan.specs.size(); ++i) {
    const KvCacheSpec& s = plan.specs[i];
    size_t groups = 0;
    for (const KvCacheGroup& g : plan.groups) groups += g.spec == i ? 1 : 0;
    specs.push_back({{"kind", layer_kind_name(s.kind)},
                     {"num_layers", s.num_layers},
                     {"num_groups", groups},
                     {"window_tokens", s.window_tokens},
                     {"block_size", s.block_size},
                     {"real_page_bytes", s.real_page_bytes},
                     {"page_bytes", s.page_bytes}});
  }
  out["specs"] = specs;
  return out;
}

namespace {

// The engine's budget term by term (null without an engine).
nlohmann::json engine_json(const CapacityPlan& plan) {
  if (!plan.engine) return nullptr;
  const EngineBudget& b = *plan.engine;
  nlohmann::json out;
  out["name"] = engine_kind_name(b.kind);
  out["version"] = engine_version_name(b.version);
  out["total_bytes"] = b.total_bytes;
  out["total_source"] = b.total_source;
  out["memory_utilization"] = b.memory_utilization;
  out["requested_bytes"] = b.requested_bytes;
  nlohmann::json terms = nlohmann::json::array();
  for (const SetAsideTerm& term : b.terms) {
    terms.push_back({{"name", term.name},
                     {"bytes", term.bytes},
                     {"formula", term.formula},
                     {"source", term.source}});
  }
  out["set_aside"] = terms;
  out["set_aside_bytes"] = b.set_aside_bytes;
  out["measured"] = b.measured;
  out["kv_factor"] = b.kv_factor;
  out["kv_budget_bytes"] = b.kv_budget_bytes;
  out["budget_negative"] = b.budget_negative;
  out["max_model_len"] = b.max_model_len;
  out["max_num_batched_tokens"] = b.max_num_batched_tokens;
  out["max_num_seqs"] = b.max_num_seqs;
  out["graphs_subtracted"] = b.graphs_subtracted;
  if (plan.reported) {
    out["reported_kv_tokens"] = plan.reported->kv_tokens;
    out["reported_max_concurrency"] = plan.reported->max_concurrency;
  }
  return out;
}

// A layout past plain TP: its numbers and what one rank holds (weights by part).
nlohmann::json parallel_json(const ParallelLayout& layout, const CapacityResult& r) {
  nlohmann::json out;
  out["tp"] = layout.tp;
  out["dp"] = layout.dp;
  out["ep"] = layout.ep;
  out["pp"] = layout.pp;
  out["attention_tp"] = layout.attention_tp();
  out["num_devices"] = layout.num_devices();
  if (r.rank_weights) {
    const RankWeights& w = *r.rank_weights;
    out["weight_stage"] = w.stage;
    out["routed_expert_bytes_per_rank"] = w.routed_bytes;
    out["replicated_bytes_per_rank"] = w.replicated_bytes;
    out["attention_tp_bytes_per_rank"] = w.attention_tp_bytes;
    out["weights_formula"] = rank_weights_formula(w, layout);
  }
  out["max_tokens_all_dp_ranks"] =
      r.max_tokens ? nlohmann::json(*r.max_tokens * layout.dp) : nlohmann::json(nullptr);
  return out;
}

}  // namespace

nlohmann::json capacity_to_json(const ModelSpec& model, const DeviceSpec* device,
                                const CapacityPlan& plan) {
  const CapacityQuery& query = plan.query;
  const CapacityResult& r = plan.capacity;
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
  if (const ParallelLayout layout = parallel_layout(query); !layout.tp_only()) {
    out["parallel"] = parallel_json(layout, r);
  }
  out["engine"] = engine_json(plan);
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

nlohmann::json capacity_rows_json(const ModelSpec& model, const std::vector<CapacityRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const CapacityRow& row : rows) out.push_back(capacity_to_json(model, row.device, row.plan));
  return rows.size() == 1 ? out[0] : out;
}

StatusOr<std::vector<DeviceSpec>> load_device_list(const std::string& spec) {
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

}  // namespace kvsim
