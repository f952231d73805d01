#include "core/capacity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/checked_math.h"
#include "core/units.h"

namespace kvsim {
namespace {

constexpr uint64_t kScaleZeroBits = 32;  // one fp16 scale + one fp16 zero point per group

// Bits of one head vector of `elements` elements, group scales included.
uint64_t vector_bits(uint64_t elements, const KvStorage& storage) {
  uint64_t bits = elements * dtype_bits(storage.dtype);
  if (storage.quant_group > 0) bits += ceil_div(elements, storage.quant_group) * kScaleZeroBits;
  return bits;
}

uint64_t scale_bits_per_vector(const KvShape& shape, const KvStorage& storage) {
  if (storage.quant_group == 0) return 0;
  return ceil_div(shape.vector_elements, storage.quant_group) * kScaleZeroBits;
}

Status overflow_error(const std::string& what) {
  return Status::invalid_argument(what + " does not fit in 64 bits; check the sizes given");
}

// Everything in the result that needs only the model and the storage.
Status fill_model_terms(const ModelSpec& model, const CapacityQuery& query, CapacityResult* out) {
  out->shape_model = kv_shape(model, 1);
  out->shape_per_device = kv_shape(model, query.tp);
  out->kv_bits_per_token = kv_bits_per_token(out->shape_model, query.kv);
  out->kv_bits_per_token_per_device = kv_bits_per_token(out->shape_per_device, query.kv);
  out->seq_len = query.seq_len > 0 ? query.seq_len : model.max_position_embeddings;
  if (out->seq_len == 0) out->seq_len = 1024;
  out->tokens_kept_per_seq = model.sliding_window_tokens > 0
                                 ? std::min<uint64_t>(out->seq_len, model.sliding_window_tokens)
                                 : out->seq_len;
  const auto tokens = checked_mul(query.batch, out->tokens_kept_per_seq);
  const auto bits = tokens ? checked_mul(*tokens, out->kv_bits_per_token) : std::nullopt;
  if (!bits) return overflow_error("kv_bytes_for_request");
  out->kv_bytes_for_request = ceil_div(*bits, kBitsPerByte);
  out->kv_bytes_per_block_nd =
      kv_bytes_per_block_nd(out->shape_per_device, query.kv, out->block_size);
  out->kv_bytes_per_block = out->nz ? kv_bytes_per_block_nz(out->shape_per_device, query.kv,
                                                            out->block_size, out->nz_width)
                                    : out->kv_bytes_per_block_nd;
  return Status::ok();
}

uint64_t activation_reserve_bytes(const ModelSpec& model, const CapacityQuery& query) {
  if (query.reserve_bytes) return *query.reserve_bytes;
  const uint64_t act_bytes = dtype_bits(query.weight_dtype) / 8;
  const uint64_t width = 4ull * model.hidden_size + 2ull * model.intermediate_size / query.tp;
  return query.activation_tokens * width * act_bytes +
         query.activation_seqs * uint64_t{model.vocab_size} * 4;
}

// The per-device budget and everything derived from the block count.
void fill_budget_terms(const ModelSpec& model, const DeviceSpec* device, const CapacityQuery& query,
                       CapacityResult* out) {
  if (model.num_params > 0) {
    const long double weights = static_cast<long double>(model.num_params) *
                                dtype_bits(query.weight_dtype) / 8.0L / query.tp;
    out->weight_bytes = static_cast<uint64_t>(std::ceil(weights));
  }
  if (query.kv_budget_bytes) {
    out->kv_budget_bytes = *query.kv_budget_bytes;
  } else if (device != nullptr && out->weight_bytes) {
    out->reserve_bytes = activation_reserve_bytes(model, query);
    out->usable_bytes = static_cast<uint64_t>(
        std::floor(static_cast<long double>(device->memory_bytes) * query.mem_fraction));
    const long double free_bytes = static_cast<long double>(*out->usable_bytes) -
                                   static_cast<long double>(*out->weight_bytes) -
                                   static_cast<long double>(*out->reserve_bytes);
    out->budget_negative = free_bytes < 0;
    out->kv_budget_bytes =
        out->budget_negative
            ? 0
            : static_cast<uint64_t>(std::floor(free_bytes * device->kv_memory_factor));
  }
  if (!out->kv_budget_bytes) return;
  const uint64_t blocks = *out->kv_budget_bytes / out->kv_bytes_per_block;
  out->num_blocks = blocks;
  out->max_tokens = blocks * out->block_size;  // <= budget bytes, cannot overflow
  out->max_batch_at_seq_len = blocks / ceil_div(out->tokens_kept_per_seq, out->block_size);
  const uint64_t per_seq_tokens = blocks / query.batch * out->block_size;
  uint64_t max_len = per_seq_tokens;
  const bool window_fits =
      model.sliding_window_tokens > 0 && per_seq_tokens >= model.sliding_window_tokens;
  if (model.max_position_embeddings > 0 &&
      (window_fits || max_len > model.max_position_embeddings)) {
    max_len = model.max_position_embeddings;
    out->max_seq_len_capped = true;
  }
  out->max_seq_len_at_batch = max_len;
}

}  // namespace

KvShape kv_shape(const ModelSpec& model, uint32_t tp) {
  KvShape shape;
  shape.num_layers = model.num_layers;
  if (model.attention == AttentionKind::kMla) {
    shape.num_tensors = 1;
    shape.heads = 1;
    shape.vector_elements = model.kv_lora_rank + model.qk_rope_head_dim;
    return shape;
  }
  shape.num_tensors = 2;
  shape.heads = std::max<uint32_t>(1, model.num_kv_heads / std::max<uint32_t>(1, tp));
  shape.vector_elements = model.head_dim;
  return shape;
}

uint64_t kv_bits_per_token(const KvShape& shape, const KvStorage& storage) {
  return uint64_t{shape.num_layers} * shape.num_tensors * shape.heads *
         vector_bits(shape.vector_elements, storage);
}

uint64_t kv_bytes_per_block_nd(const KvShape& shape, const KvStorage& storage,
                               uint32_t block_size) {
  // One layer's K (or V) block is its own allocation: round each up to whole bytes.
  const uint64_t tensor_bits =
      uint64_t{block_size} * shape.heads * vector_bits(shape.vector_elements, storage);
  return uint64_t{shape.num_layers} * shape.num_tensors * ceil_div(tensor_bits, kBitsPerByte);
}

BlockLayout block_layout(const KvShape& shape, uint32_t block_size, uint32_t nz_width) {
  BlockLayout layout;
  layout.block_size = block_size;
  layout.kv_heads = shape.heads;
  layout.head_dim = shape.vector_elements;
  layout.nz_width = nz_width;
  return layout;
}

uint64_t kv_bytes_per_block_nz(const KvShape& shape, const KvStorage& storage, uint32_t block_size,
                               uint32_t nz_width) {
  const BlockLayout layout = block_layout(shape, block_size, nz_width);
  const uint64_t data_bits = layout.nz_elements() * dtype_bits(storage.dtype);
  const uint64_t scale_bits =
      uint64_t{block_size} * shape.heads * scale_bits_per_vector(shape, storage);
  return uint64_t{shape.num_layers} * shape.num_tensors *
         ceil_div(data_bits + scale_bits, kBitsPerByte);
}

StatusOr<CapacityResult> compute_capacity(const ModelSpec& model, const DeviceSpec* device,
                                          const CapacityQuery& query) {
  KVSIM_RETURN_IF_ERROR(validate_model(model));
  if (query.tp == 0) return Status::invalid_argument("--tp must be >= 1");
  if (query.batch == 0) return Status::invalid_argument("--batch must be >= 1");
  if (!(query.mem_fraction > 0 && query.mem_fraction <= 1)) {
    return Status::invalid_argument("--mem-fraction must be in (0, 1]");
  }
  if (model.attention != AttentionKind::kMla && model.num_kv_heads % query.tp != 0 &&
      query.tp % model.num_kv_heads != 0) {
    return Status::invalid_argument(
        fmt::format("--tp {} must divide the {} KV heads of '{}' or be a multiple of them",
                    query.tp, model.num_kv_heads, model.name));
  }
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
  fill_budget_terms(model, device, query, &out);
  return out;
}

}  // namespace kvsim
