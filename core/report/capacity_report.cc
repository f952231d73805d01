#include "core/report/capacity_report.h"

#include <sstream>

#include "core/base/checked_math.h"
#include "core/base/text_format.h"
#include "core/report/engine_memory_report.h"
#include "core/report/group_report.h"

namespace kvsim {
namespace {

std::string bytes_line(uint64_t bytes) {
  return format_count(bytes) + " B (" + format_bytes(bytes) + ")";
}

// "bits / 8" as bytes, with a fraction when sub-byte dtypes leave one.
std::string bits_as_bytes(uint64_t bits) {
  if (bits % 8 == 0) return format_count(bits / 8);
  return format_number(static_cast<double>(bits) / 8.0);
}

std::string dtype_bytes(DType dtype) { return format_number(dtype_bits(dtype) / 8.0); }

void describe_inputs(const ModelSpec& model, const DeviceSpec* device, const CapacityQuery& query,
                     const CapacityResult& r, std::ostringstream& out) {
  out << "Model   " << model.name << " (" << attention_kind_name(model.attention) << ", "
      << model.num_layers << " layers, " << model.num_attention_heads << " query / "
      << model.num_kv_heads << " KV heads x " << model.head_dim;
  if (model.sliding_window_tokens > 0) out << ", sliding window " << model.sliding_window_tokens;
  out << ")\n";
  if (!model.layer_groups.empty()) out << "Layers  " << describe_layer_groups(model) << "\n";
  if (device != nullptr) {
    out << "Device  " << device->name << " (" << format_bytes(device->memory_bytes) << ", "
        << kv_layout_name(device->kv_layout) << " layout)\n";
  } else {
    out << "Device  none given: device-dependent answers are left out\n";
  }
  out << "KV      " << dtype_name(query.kv.dtype);
  if (query.kv.quant_group > 0)
    out << " with an fp16 scale + zero per " << query.kv.quant_group << " elements";
  out << ", block " << r.block_size << " tokens, TP " << query.tp << ", weights "
      << dtype_name(query.weight_dtype) << "\n\n";
}

void explain_token_bytes(const ModelSpec& model, const CapacityQuery& query,
                         const CapacityResult& r, std::ostringstream& out) {
  const KvShape& s = r.shape_model;
  out << "KV bytes per token (whole model)\n";
  if (model.attention == AttentionKind::kMla) {
    out << "  = layers x (kv_lora_rank + qk_rope_head_dim) x bytes(" << dtype_name(query.kv.dtype)
        << ")\n  = " << s.num_layers << " x (" << model.kv_lora_rank << " + "
        << model.qk_rope_head_dim << ") x " << dtype_bytes(query.kv.dtype);
  } else {
    out << "  = 2 (K and V) x layers x kv_heads x head_dim x bytes(" << dtype_name(query.kv.dtype)
        << ")\n  = 2 x " << s.num_layers << " x " << s.heads << " x " << s.vector_elements << " x "
        << dtype_bytes(query.kv.dtype);
  }
  if (query.kv.quant_group > 0) {
    out << "  + scales: " << s.num_tensors * s.heads << " vectors x " << s.num_layers
        << " layers x ceil(" << s.vector_elements << " / " << query.kv.quant_group << ") x 4 B";
  }
  out << "\n  = " << bits_as_bytes(r.kv_bits_per_token) << " B\n";
  const ParallelLayout layout = parallel_layout(query);
  if (!layout.tp_only()) {
    out << "  per rank at attention TP " << layout.attention_tp() << ", PP " << layout.pp << ": "
        << r.shape_per_device.num_layers << " layers x "
        << (model.attention == AttentionKind::kMla
                ? "the whole latent (not split by TP)"
                : std::to_string(r.shape_per_device.heads) + " KV heads")
        << " -> " << bits_as_bytes(r.kv_bits_per_token_per_device) << " B\n";
  } else if (query.tp > 1) {
    out << "  per device with TP " << query.tp << ": " << r.shape_per_device.heads
        << " KV heads -> " << bits_as_bytes(r.kv_bits_per_token_per_device) << " B\n";
  }
}

// A layout past plain TP (core/engine/parallel_layout.h): what one rank holds.
void explain_layout(const CapacityQuery& query, const CapacityResult& r, std::ostringstream& out) {
  const ParallelLayout layout = parallel_layout(query);
  if (layout.tp_only()) return;
  out << "Layout  " << describe_parallel_layout(layout) << "\n";
  if (r.rank_weights) {
    out << "  weights per rank = " << rank_weights_formula(*r.rank_weights, layout) << " = "
        << bytes_line(r.rank_weights->bytes) << "\n";
  }
  out << "  KV per rank: its attention-TP share of its stage's layers; a DP rank caches only its "
         "own requests\n\n";
}

// A hybrid model: each group's bytes, then vLLM's KV cache groups (core/model/kv_groups.h).
void explain_hybrid_bytes(const CapacityQuery& query, const CapacityResult& r,
                          std::ostringstream& out) {
  out << "KV bytes by layer group (whole model)\n"
      << layer_group_lines(r.groups, query.kv, query.tp) << "  = "
      << bits_as_bytes(r.kv_bits_per_token) << " B per token over the attention groups";
  if (query.tp > 1)
    out << " (" << bits_as_bytes(r.kv_bits_per_token_per_device) << " B per device)";
  out << "\nvLLM KV cache groups (one device)\n" << kv_cache_plan_lines(*r.hybrid);
  if (r.nz)
    out << "  (NZ pages; the ND block would be " << bytes_line(r.kv_bytes_per_block_nd) << ")\n";
  out << "KV bytes for the request (" << format_count(query.batch) << " x "
      << format_count(r.seq_len) << " tokens; sliding groups keep their window, recurrent groups "
      << "one state)\n  = " << bytes_line(r.kv_bytes_for_request) << "\n";
}

void explain_block_and_request(const CapacityQuery& query, const CapacityResult& r,
                               std::ostringstream& out) {
  out << "KV bytes per block (one device)\n  = bytes per token x block_size = "
      << bits_as_bytes(r.kv_bits_per_token_per_device) << " x " << r.block_size << " = "
      << bytes_line(r.kv_bytes_per_block_nd) << "\n";
  if (r.nz) {
    const BlockLayout layout = block_layout(r.shape_per_device, r.block_size, r.nz_width);
    const auto shape = layout.nz_shape();
    out << "  NZ layout pads each layer's K and V block to [" << shape[0] << ", " << shape[1]
        << ", " << shape[2] << "] = [ceil(" << layout.columns() << " / " << r.nz_width << "), ceil("
        << r.block_size << " / 16) x 16, " << r.nz_width << "]\n  -> "
        << bytes_line(r.kv_bytes_per_block) << ", padding "
        << format_fixed(100.0 * layout.nz_padding_fraction(), 1) << "%\n";
  }
  out << "KV bytes for the request (" << format_count(query.batch) << " x "
      << format_count(r.tokens_kept_per_seq) << " tokens";
  if (r.tokens_kept_per_seq < r.seq_len) out << " kept of " << format_count(r.seq_len);
  out << ")\n  = batch x tokens x bytes per token = " << bytes_line(r.kv_bytes_for_request) << "\n";
}

void explain_budget(const ModelSpec& model, const CapacityPlan& plan, std::ostringstream& out) {
  const CapacityQuery& query = plan.query;
  const CapacityResult& r = plan.capacity;
  if (plan.engine) {
    out << engine_budget_report(*plan.engine);
    return;
  }
  if (r.weight_bytes && !parallel_layout(query).tp_only()) {
    out << "Weights per rank = " << bytes_line(*r.weight_bytes) << " (Layout above)\n";
  } else if (r.weight_bytes) {
    out << "Weights per device\n  = params x bytes(" << dtype_name(query.weight_dtype)
        << ") / TP = " << format_count(model.num_params) << " x " << dtype_bytes(query.weight_dtype)
        << " / " << query.tp << " = " << bytes_line(*r.weight_bytes) << "\n";
  }
  if (query.kv_budget_bytes) {
    out << "KV budget per device (given) = " << bytes_line(*r.kv_budget_bytes) << "\n";
  }
}

void explain_hybrid_counts(const ModelSpec& model, const CapacityQuery& query,
                           const CapacityResult& r, std::ostringstream& out) {
  const KvCachePlan& plan = *r.hybrid;
  out << "Blocks = floor(budget / bytes per block id) = floor(" << format_count(*r.kv_budget_bytes)
      << " / " << format_count(r.kv_bytes_per_block) << ") = " << format_count(*r.num_blocks)
      << "\nMax tokens (vLLM's \"GPU KV cache size\") = floor(blocks / " << plan.groups.size()
      << " groups) x " << plan.min_block_size() << " = " << format_count(*r.max_tokens)
      << "\nBlocks per sequence of " << format_count(r.seq_len)
      << " tokens = " << blocks_per_request_formula(plan, r.seq_len, query.max_num_batched_tokens)
      << " = " << format_count(r.blocks_per_seq) << "  (max_num_batched_tokens "
      << format_count(query.max_num_batched_tokens) << ")\nMax sequences of "
      << format_count(r.seq_len) << " tokens = floor(" << format_count(*r.num_blocks) << " / "
      << format_count(r.blocks_per_seq) << ") = " << format_count(*r.max_batch_at_seq_len)
      << "\nMax tokens per sequence at batch " << format_count(query.batch)
      << " = the longest whose blocks fit = " << format_count(*r.max_seq_len_at_batch);
  if (r.max_seq_len_capped) {
    out << " (capped at the model's " << format_count(model.max_position_embeddings)
        << " positions)";
  }
  out << "\n";
}

void explain_counts(const ModelSpec& model, const CapacityPlan& plan, std::ostringstream& out) {
  const CapacityQuery& query = plan.query;
  const CapacityResult& r = plan.capacity;
  if (!r.num_blocks) return;
  if (r.hybrid) return explain_hybrid_counts(model, query, r, out);
  const uint64_t blocks_per_seq = ceil_div(r.tokens_kept_per_seq, r.block_size);
  out << "Blocks = floor(budget / bytes per block) = floor(" << format_count(*r.kv_budget_bytes)
      << " / " << format_count(r.kv_bytes_per_block) << ") = " << format_count(*r.num_blocks)
      << "\nMax tokens = blocks x block_size = " << format_count(*r.max_tokens)
      << " (vLLM's \"GPU KV cache size\")\nUsable blocks = blocks - 1 (block 0 is the null block) "
         "= "
      << format_count(*r.num_usable_blocks) << "\nMax sequences of " << format_count(r.seq_len)
      << " tokens = floor(usable blocks / ceil(" << format_count(r.tokens_kept_per_seq) << " / "
      << r.block_size << ")) = floor(" << format_count(*r.num_usable_blocks) << " / "
      << format_count(blocks_per_seq) << ") = " << format_count(*r.max_batch_at_seq_len)
      << "\nMax tokens per sequence at batch " << format_count(query.batch)
      << " = floor(usable blocks / batch) x block_size = " << format_count(*r.max_seq_len_at_batch);
  if (r.max_seq_len_capped) {
    out << " (capped at the model's " << format_count(model.max_position_embeddings)
        << " positions)";
  }
  out << "\n";
  if (plan.reported) {
    out << "The engine's start-up log would print " << format_count(plan.reported->kv_tokens)
        << " tokens (" << plan.reported->tokens_formula << ")";
    if (plan.reported->max_concurrency > 0) {
      out << " and a maximum concurrency of " << format_fixed(plan.reported->max_concurrency, 2)
          << "x for " << format_count(plan.engine->max_model_len) << " tokens per request ("
          << plan.reported->concurrency_formula << ")";
    }
    out << "\n";
  }
}

// With data-parallel attention each DP rank caches its own requests: the layout holds dp pools.
void explain_dp_tokens(const CapacityPlan& plan, std::ostringstream& out) {
  const CapacityResult& r = plan.capacity;
  if (plan.query.dp <= 1 || !r.max_tokens) return;
  out << "Tokens the layout caches = dp x max tokens of one rank's DP rank = " << plan.query.dp
      << " x " << format_count(*r.max_tokens) << " = "
      << format_count(*r.max_tokens * plan.query.dp) << "\n";
}

}  // namespace

std::string capacity_report(const ModelSpec& model, const DeviceSpec* device,
                            const CapacityPlan& plan) {
  std::ostringstream out;
  const CapacityQuery& query = plan.query;
  const CapacityResult& result = plan.capacity;
  describe_inputs(model, device, query, result, out);
  explain_layout(query, result, out);
  if (result.hybrid) {
    explain_hybrid_bytes(query, result, out);
  } else {
    explain_token_bytes(model, query, result, out);
    explain_block_and_request(query, result, out);
  }
  explain_budget(model, plan, out);
  explain_counts(model, plan, out);
  explain_dp_tokens(plan, out);
  return out.str();
}

std::string capacity_table(const ModelSpec& model, const std::vector<CapacityRow>& rows) {
  std::ostringstream out;
  char line[256];
  const CapacityQuery* query = rows.empty() ? nullptr : &rows.front().plan.query;
  const uint64_t seq_len = rows.empty() ? 0 : rows.front().plan.capacity.seq_len;
  std::string engine = "no engine";
  for (const CapacityRow& row : rows) {
    if (row.plan.engine) engine = std::string(engine_kind_name(row.plan.engine->kind));
  }
  if (query != nullptr) {
    out << "KV cache capacity of " << model.name << " (" << dtype_name(query->kv.dtype) << " KV, "
        << dtype_name(query->weight_dtype) << " weights, TP " << query->tp << ", " << engine
        << ")\n\n";
  }
  std::snprintf(line, sizeof line, "%-14s %4s %6s %12s %12s %12s %12s %10s %14s %12s\n", "device",
                "kv", "block", "memory", "weights", "other", "KV budget", "blocks", "max tokens",
                ("seqs@" + format_count(seq_len)).c_str());
  out << line;
  for (const CapacityRow& row : rows) {
    const CapacityResult& r = row.plan.capacity;
    const auto opt_bytes = [](const std::optional<uint64_t>& v) {
      return v ? format_bytes(*v) : std::string("-");
    };
    const auto opt_count = [](const std::optional<uint64_t>& v) {
      return v ? format_count(*v) : std::string("-");
    };
    std::optional<uint64_t> other;
    if (row.plan.engine && r.weight_bytes) {
      const uint64_t aside = row.plan.engine->set_aside_bytes;
      other = aside > *r.weight_bytes ? aside - *r.weight_bytes : 0;
    }
    std::snprintf(line, sizeof line, "%-14s %4s %6u %12s %12s %12s %12s %10s %14s %12s\n",
                  row.device->name.c_str(), r.nz ? "nz" : "nd", r.block_size,
                  format_bytes(row.device->memory_bytes).c_str(), opt_bytes(r.weight_bytes).c_str(),
                  opt_bytes(other).c_str(), opt_bytes(r.kv_budget_bytes).c_str(),
                  opt_count(r.num_blocks).c_str(), opt_count(r.max_tokens).c_str(),
                  opt_count(r.max_batch_at_seq_len).c_str());
    out << line;
  }
  out << "\nKV budget = what the engine may use (memory x utilization) - weights - the rest it sets"
         "\naside (activation peak, non-torch memory, graphs: 'other'); blocks = floor(budget /"
         "\nbytes per block), block 0 (vLLM's null block) included; max tokens = blocks x block"
         "\nsize; seqs from the blocks - 1 usable. Run with one --device for the derivation term"
         "\nby term.\n";
  return out.str();
}

StatusOr<std::vector<CapacityRow>> plan_capacity_rows(const ModelSpec& model,
                                                      const std::vector<DeviceSpec>& devices,
                                                      const CapacityQuery& query,
                                                      const EngineQuery& engine) {
  std::vector<CapacityRow> rows;
  if (devices.empty()) rows.push_back({nullptr, {}});
  for (const DeviceSpec& device : devices) rows.push_back({&device, {}});
  for (CapacityRow& row : rows) {
    KVSIM_ASSIGN_OR_RETURN(row.plan, plan_capacity(model, row.device, query, engine));
  }
  return rows;
}

}  // namespace kvsim
