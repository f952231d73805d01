#include "core/model/activation_memory.h"

#include <algorithm>

#include "core/base/checked_math.h"

namespace kvsim {

ActivationPeak activation_peak(const ModelSpec& model, uint32_t tp, DType activation_dtype,
                               const ProfileBatch& batch, uint32_t sampler_bytes_per_logit) {
  const uint64_t b = dtype_bits(activation_dtype) / 8;
  const uint64_t ranks = std::max<uint32_t>(tp, 1);
  const uint64_t hidden = model.hidden_size;
  const uint64_t q_heads = std::max<uint64_t>(1, model.num_attention_heads / ranks);
  const uint64_t kv_heads = std::max<uint64_t>(1, model.num_kv_heads / ranks);
  ActivationPeak out;
  out.mlp_bytes_per_token = (3 * hidden + 3 * uint64_t{model.intermediate_size} / ranks) * b;
  out.attention_bytes_per_token = (3 * hidden + (2 * q_heads + 2 * kv_heads) * model.head_dim) * b;
  out.forward_bytes =
      batch.num_tokens * std::max(out.mlp_bytes_per_token, out.attention_bytes_per_token);
  out.hidden_bytes = batch.num_tokens * hidden * b;
  out.logits_elements = batch.num_seqs * uint64_t{model.vocab_size};
  out.sampler_bytes_per_logit = sampler_bytes_per_logit;
  out.sampler_bytes = out.hidden_bytes + out.logits_elements * sampler_bytes_per_logit;
  if (batch.cold_compile) {
    out.compile_bytes =
        (ceil_div(uint64_t{model.vocab_size}, ranks) + batch.num_tokens) * hidden * b;
  }
  out.peak_bytes = std::max({out.forward_bytes, out.sampler_bytes, out.compile_bytes});
  return out;
}

}  // namespace kvsim
