#include "core/engine/capacity.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "core/base/checked_math.h"
#include "core/base/units.h"
#include "core/model/weight_memory.h"

namespace kvsim {
namespace {

Status overflow_error(const std::string& what) {
  return Status::invalid_argument(what + " does not fit in 64 bits; check the sizes given");
}

// kv_bytes_for_request of a hybrid model: each group's tokens kept and its states, exactly.
StatusOr<uint64_t> hybrid_request_bytes(const CapacityQuery& query, const CapacityResult& r) {
  uint64_t bits = 0;
  for (const LayerGroupBytes& g : r.groups) {
    const uint64_t kept = g.group.kind == LayerKind::kSlidingWindow
                              ? std::min<uint64_t>(r.seq_len, g.group.window_tokens)
                              : r.seq_len;
    const auto tokens = checked_mul(kept, g.bits_per_token);
    const auto state = checked_mul(g.state_bits_per_layer, g.group.num_layers);
    const auto sum = tokens && state ? checked_add(*tokens, *state) : std::nullopt;
    const auto total = sum ? checked_add(bits, *sum) : std::nullopt;
    if (!total) return overflow_error("kv_bytes_for_request");
    bits = *total;
  }
  const auto all = checked_mul(bits, query.batch);
  if (!all) return overflow_error("kv_bytes_for_request");
  return ceil_div(*all, kBitsPerByte);
}

Status fill_hybrid_terms(const ModelSpec& model, const CapacityQuery& query, CapacityResult* out) {
  const uint32_t attn_tp = parallel_layout(query).attention_tp();
  KVSIM_ASSIGN_OR_RETURN(KvCachePlan plan, plan_kv_cache(model, query.kv, attn_tp, out->block_size,
                                                         out->nz, out->nz_width));
  out->kv_bits_per_token = 0;
  out->kv_bits_per_token_per_device = 0;
  for (const LayerGroupBytes& g : out->groups) {
    out->kv_bits_per_token += g.bits_per_token;
    out->kv_bits_per_token_per_device += g.bits_per_token_per_device;
  }
  out->block_size = plan.min_block_size();
  out->tokens_kept_per_seq = out->seq_len;
  KVSIM_ASSIGN_OR_RETURN(out->kv_bytes_for_request, hybrid_request_bytes(query, *out));
  out->kv_bytes_per_block = plan.bytes_per_block();
  KVSIM_ASSIGN_OR_RETURN(
      KvCachePlan nd_plan,
      plan_kv_cache(model, query.kv, attn_tp, out->block_size, /*nz=*/false, out->nz_width));
  out->kv_bytes_per_block_nd = nd_plan.bytes_per_block();
  out->blocks_per_seq = blocks_per_request(plan, out->seq_len, query.max_num_batched_tokens);
  out->hybrid = std::move(plan);
  return Status::ok();
}

// Everything in the result that needs only the model and the storage.
Status fill_model_terms(const ModelSpec& model, const CapacityQuery& query, CapacityResult* out) {
  const ParallelLayout layout = parallel_layout(query);
  KVSIM_ASSIGN_OR_RETURN(out->groups, layer_group_bytes(model, query.kv, layout.attention_tp()));
  out->shape_model = kv_shape(model, 1);
  out->shape_per_device = rank_kv_shape(model, layout);
  out->seq_len = query.seq_len > 0 ? query.seq_len : model.max_position_embeddings;
  if (out->seq_len == 0) out->seq_len = 1024;
  if (is_hybrid(model)) return fill_hybrid_terms(model, query, out);
  out->kv_bits_per_token = kv_bits_per_token(out->shape_model, query.kv);
  out->kv_bits_per_token_per_device = kv_bits_per_token(out->shape_per_device, query.kv);
  const uint32_t window = uniform_window_tokens(model);
  out->tokens_kept_per_seq = window > 0 ? std::min<uint64_t>(out->seq_len, window) : out->seq_len;
  const auto tokens = checked_mul(query.batch, out->tokens_kept_per_seq);
  const auto bits = tokens ? checked_mul(*tokens, out->kv_bits_per_token) : std::nullopt;
  if (!bits) return overflow_error("kv_bytes_for_request");
  out->kv_bytes_for_request = ceil_div(*bits, kBitsPerByte);
  out->kv_bytes_per_block_nd =
      kv_bytes_per_block_nd(out->shape_per_device, query.kv, out->block_size);
  out->kv_bytes_per_block = out->nz ? kv_bytes_per_block_nz(out->shape_per_device, query.kv,
                                                            out->block_size, out->nz_width)
                                    : out->kv_bytes_per_block_nd;
  out->blocks_per_seq = ceil_div(out->tokens_kept_per_seq, out->block_size);
  return Status::ok();
}

// The weights one device holds (core/model/weight_memory.h) and the query's budget: given, or the
// engine's (core/engine/capacity_plan.h); this file only turns a budget into blocks.
void fill_budget_terms(const ModelSpec& model, const CapacityQuery& query, CapacityResult* out) {
  if (model.num_params > 0) {
    out->rank_weights = rank_weights(model, query.weight_dtype, parallel_layout(query));
    out->weight_bytes = out->rank_weights->bytes;
  }
  out->kv_budget_bytes = query.kv_budget_bytes;
}

// Blocks, tokens and sequences of a uniform model from the budget. Block 0 is the pool's null
// block (vLLM's), so a request can use one block fewer than the budget holds; the token count
// is of all blocks, as vLLM's start-up log prints it.
void fill_counts(const ModelSpec& model, const CapacityQuery& query, CapacityResult* out) {
  const uint64_t all_blocks = *out->kv_budget_bytes / out->kv_bytes_per_block;
  out->num_blocks = all_blocks;
  out->max_tokens = all_blocks * out->block_size;               // <= budget bytes, cannot overflow
  const uint64_t blocks = all_blocks > 0 ? all_blocks - 1 : 0;  // less the null block
  out->num_usable_blocks = blocks;
  out->max_batch_at_seq_len = blocks / out->blocks_per_seq;
  const uint64_t per_seq_tokens = blocks / query.batch * out->block_size;
  uint64_t max_len = per_seq_tokens;
  const uint32_t window = uniform_window_tokens(model);
  const bool window_fits = window > 0 && per_seq_tokens >= window;
  if (model.max_position_embeddings > 0 &&
      (window_fits || max_len > model.max_position_embeddings)) {
    max_len = model.max_position_embeddings;
    out->max_seq_len_capped = true;
  }
  out->max_seq_len_at_batch = max_len;
}

// The same for a hybrid model, by core/model/kv_groups.h. The longest sequence for `batch`
// sequences is searched: blocks per request grow with the length (monotone).
void fill_hybrid_counts(const ModelSpec& model, const CapacityQuery& query, CapacityResult* out) {
  const KvCachePlan& plan = *out->hybrid;
  const uint64_t blocks = *out->kv_budget_bytes / out->kv_bytes_per_block;
  out->num_blocks = blocks;
  out->max_tokens = reported_tokens(plan, blocks);
  out->max_batch_at_seq_len = blocks / out->blocks_per_seq;
  const uint64_t limit =
      model.max_position_embeddings > 0 ? model.max_position_embeddings : uint64_t{1} << 40;
  const auto fits = [&](uint64_t len) {
    const auto need =
        checked_mul(query.batch, blocks_per_request(plan, len, query.max_num_batched_tokens));
    return need && *need <= blocks;
  };
  uint64_t low = 0;  // fits (or 0)
  uint64_t high = limit + 1;
  while (high - low > 1) {
    const uint64_t mid = low + (high - low) / 2;
    (fits(mid) ? low : high) = mid;
  }
  out->max_seq_len_at_batch = low;
  out->max_seq_len_capped = low == limit && model.max_position_embeddings > 0;
}

// The heads of a uniform or hybrid model split evenly over the attention TP.
Status check_heads(const ModelSpec& model, const CapacityQuery& query) {
  const uint32_t attn_tp = parallel_layout(query).attention_tp();
  // vLLM (ModelConfig.verify_with_parallel_config: "Total number of attention heads (...) must
  // be divisible by tensor parallel size") and SGLang shard the query heads evenly.
  if (model.num_attention_heads > 0 && model.num_attention_heads % attn_tp != 0) {
    std::vector<uint32_t> valid;
    for (uint32_t tp = 1; tp <= model.num_attention_heads; ++tp) {
      if (model.num_attention_heads % tp == 0) valid.push_back(tp);
    }
    return Status::invalid_argument(fmt::format(
        "{} must divide the {} attention heads of '{}', as vLLM and SGLang require; valid: {}",
        query.dp > 1 ? fmt::format("attention tensor parallelism {} (tp / dp)", attn_tp)
                     : fmt::format("tensor parallelism {} (--tp, num_devices)", attn_tp),
        model.num_attention_heads, model.name, fmt::join(valid, ", ")));
  }
  if (model.attention != AttentionKind::kMla && model.num_kv_heads % attn_tp != 0 &&
      attn_tp % model.num_kv_heads != 0) {
    return Status::invalid_argument(fmt::format(
        "{} {} must divide the {} KV heads of '{}' or be a multiple of them",
        query.dp > 1 ? "attention TP (tp / dp)" : "--tp", attn_tp, model.num_kv_heads, model.name));
  }
  return Status::ok();
}

}  // namespace

StatusOr<CapacityResult> compute_capacity(const ModelSpec& model, const DeviceSpec* device,
                                          const CapacityQuery& query) {
  KVSIM_RETURN_IF_ERROR(validate_model(model));
  if (query.tp == 0) return Status::invalid_argument("--tp must be >= 1");
  KVSIM_RETURN_IF_ERROR(validate_parallel_layout(model, parallel_layout(query)));
  if (query.batch == 0) return Status::invalid_argument("--batch must be >= 1");
  if (query.max_num_batched_tokens == 0) {
    return Status::invalid_argument("--max-num-batched-tokens must be >= 1");
  }
  KVSIM_RETURN_IF_ERROR(check_heads(model, query));
  if (device != nullptr && !supports_kv_dtype(*device, query.kv.dtype)) {
    std::vector<std::string_view> valid;
    for (DType dtype : device->kv_dtypes) valid.push_back(dtype_name(dtype));
    return Status::invalid_argument(fmt::format("device '{}' does not store KV as {}; valid: {}",
                                                device->name, dtype_name(query.kv.dtype),
                                                fmt::join(valid, ", ")));
  }
  CapacityResult out;
  out.block_size = query.block_size > 0 ? query.block_size
                   : device != nullptr  ? device->default_block_size
                                        : 16;
  out.nz = device != nullptr && device->kv_layout == KvLayout::kNz;
  out.nz_width = nz_fractal_width(device, query.kv.dtype);
  // Guard the block-size products against overflow before any of them is formed.
  const auto block_bits = checked_mul(uint64_t{out.block_size} * 2 + 16,
                                      kv_bits_per_token(kv_shape(model, 1), query.kv) + 64);
  if (!block_bits) return overflow_error("bytes per block");
  KVSIM_RETURN_IF_ERROR(fill_model_terms(model, query, &out));
  if (out.kv_bytes_per_block == 0) return Status::invalid_argument("a KV block has zero bytes");
  fill_budget_terms(model, query, &out);
  if (!out.kv_budget_bytes) return out;
  if (out.hybrid) {
    fill_hybrid_counts(model, query, &out);
  } else {
    fill_counts(model, query, &out);
  }
  return out;
}

}  // namespace kvsim
