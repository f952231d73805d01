#include "core/model/weight_memory.h"

#include <algorithm>
#include <cmath>

#include "core/base/checked_math.h"
#include "core/base/units.h"
#include "core/model/param_count.h"

namespace kvsim {
namespace {

constexpr uint32_t kEmbeddingBits = 16;     // the model's fp16/bf16 dtype
constexpr long double kInt4GroupBits = 20;  // fp16 scale + 4-bit zero point per group
constexpr long double kInt4GroupSize = 128;

// The width of what quantization leaves unquantized (embeddings, lm_head, MoE router): the
// weight dtype itself where that is 16-bit or wider or a checkpoint names its quantized
// parameters, else 16-bit.
uint32_t unquantized_bits(const ModelSpec& model, DType weight_dtype) {
  const uint32_t bits = dtype_bits(weight_dtype);
  return !model.weight_quantization.method.empty() || bits >= kEmbeddingBits ? bits
                                                                             : kEmbeddingBits;
}

// Bits of all weights as the checkpoint stores them, router included.
long double total_bits(const ModelSpec& model, DType weight_dtype) {
  if (!model.weight_quantization.method.empty()) {
    // The checkpoint names its quantized parameters and their groups (core/model/model_spec.h):
    // count those exactly, the rest (router included) at the weight dtype.
    return static_cast<long double>(weight_bits(model, weight_dtype));
  }
  const long double params = static_cast<long double>(model.num_params);
  const uint32_t bits = dtype_bits(weight_dtype);
  if (bits >= kEmbeddingBits) return params * bits;
  const long double kept =
      std::min(params, static_cast<long double>(embedding_params(model) + router_params(model)));
  const long double linear = params - kept;
  long double total = linear * bits + kept * unquantized_bits(model, weight_dtype);
  if (weight_dtype == DType::kInt4) total += linear * kInt4GroupBits / kInt4GroupSize;
  return total;
}

// The width the K and V projections are stored at.
uint32_t linear_bits(const ModelSpec& model, DType weight_dtype) {
  const WeightQuantization& q = model.weight_quantization;
  return q.method.empty() ? dtype_bits(weight_dtype) : dtype_bits(q.dtype);
}

// Bits per parameter of a linear layer, its quantization groups included.
long double linear_bits_per_param(const ModelSpec& model, DType weight_dtype) {
  const WeightQuantization& q = model.weight_quantization;
  if (!q.method.empty()) {
    const long double groups =
        q.group_size > 0 ? static_cast<long double>(q.group_bits) / q.group_size : 0;
    return dtype_bits(q.dtype) + groups;
  }
  const uint32_t bits = dtype_bits(weight_dtype);
  if (weight_dtype == DType::kInt4 && bits < kEmbeddingBits) {
    return bits + kInt4GroupBits / kInt4GroupSize;
  }
  return bits;
}

}  // namespace

DType run_weight_dtype(const ModelSpec& model, std::optional<DType> stated) {
  if (stated) return *stated;
  return model.checkpoint_dtype == DType::kBf16 ? DType::kBf16 : DType::kFp16;
}

uint64_t embedding_params(const ModelSpec& model) {
  const uint64_t one = uint64_t{model.vocab_size} * model.hidden_size;
  return model.tie_word_embeddings ? one : 2 * one;
}

uint64_t router_params(const ModelSpec& model) {
  if (model.num_experts == 0 || model.num_layers <= model.num_dense_layers) return 0;
  return uint64_t{model.num_layers - model.num_dense_layers} * model.hidden_size *
         model.num_experts;
}

uint64_t replicated_kv_params(const ModelSpec& model, uint32_t tp) {
  if (tp <= model.num_kv_heads || model.num_kv_heads == 0 || model.kv_lora_rank > 0 ||
      is_hybrid(model)) {
    return 0;
  }
  // Every rank holds one whole KV head where the even share would be kv_heads / tp of one.
  return uint64_t{model.num_layers} * 2 * model.hidden_size * model.head_dim;
}

uint64_t routed_expert_params(const ModelSpec& model) {
  if (model.num_experts == 0 || model.num_layers <= model.num_dense_layers) return 0;
  ParamCount layer;  // one MoE layer, as the importer counts it
  add_moe(model.hidden_size, model.num_experts, model.num_experts_per_token,
          model.moe_intermediate_size, /*router_bias=*/false, /*expert_bias=*/false, &layer);
  return uint64_t{model.num_layers - model.num_dense_layers} * layer.expert_linear;
}

WeightBitsSplit split_weight_bits(const ModelSpec& model, DType weight_dtype) {
  WeightBitsSplit out;
  const long double vocab_hidden = static_cast<long double>(model.vocab_size) * model.hidden_size;
  const uint32_t kept_bits = unquantized_bits(model, weight_dtype);
  out.embedding = vocab_hidden * kept_bits;
  out.lm_head = model.tie_word_embeddings ? 0 : out.embedding;
  out.router = static_cast<long double>(router_params(model)) * kept_bits;
  out.routed_experts = static_cast<long double>(routed_expert_params(model)) *
                       linear_bits_per_param(model, weight_dtype);
  // The K and V projections of all heads (replicated_kv_params counts one head's).
  const uint32_t past_heads = model.num_kv_heads + 1;
  out.kv_projection = static_cast<long double>(replicated_kv_params(model, past_heads)) *
                      linear_bits(model, weight_dtype) * model.num_kv_heads;
  out.rest = total_bits(model, weight_dtype) - out.embedding - out.lm_head - out.router -
             out.routed_experts - out.kv_projection;
  return out;
}

uint64_t loaded_weight_bytes(const ModelSpec& model, DType weight_dtype, uint32_t tp) {
  tp = std::max<uint32_t>(tp, 1);
  const long double kv = static_cast<long double>(replicated_kv_params(model, tp));
  const long double kv_bits = kv * linear_bits(model, weight_dtype);
  const long double kv_share = kv_bits * model.num_kv_heads;  // all K and V projections
  const long double router =
      static_cast<long double>(router_params(model)) * unquantized_bits(model, weight_dtype);
  const long double sharded = total_bits(model, weight_dtype) - router - kv_share;
  const long double per_rank = sharded / tp + router + kv_bits;
  return static_cast<uint64_t>(std::ceil(per_rank / 8.0L));
}

}  // namespace kvsim
