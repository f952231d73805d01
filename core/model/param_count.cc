#include "core/model/param_count.h"

namespace kvsim {

void add_attention(uint64_t hidden, uint64_t heads, uint64_t kv_heads, uint64_t head_dim,
                   bool qkv_bias, bool o_bias, ParamCount* count) {
  const uint64_t q = heads * head_dim;
  const uint64_t kv = kv_heads * head_dim;
  count->attention_linear += hidden * q + 2 * hidden * kv + q * hidden;
  if (qkv_bias) count->other += q + 2 * kv;
  if (o_bias) count->other += hidden;
}

void add_dense_ffn(uint64_t hidden, uint64_t inner, bool gated, bool bias, ParamCount* count) {
  const uint64_t inputs = gated ? 2 : 1;  // gate and up, or up
  count->mlp_linear += inputs * hidden * inner + inner * hidden;
  if (bias) count->other += inputs * inner + hidden;
}

void add_moe(uint64_t hidden, uint64_t experts, uint64_t top_k, uint64_t inner, bool router_bias,
             bool expert_bias, ParamCount* count) {
  count->other += hidden * experts + (router_bias ? experts : 0);
  const uint64_t matrices = 3 * hidden * inner;
  const uint64_t biases = expert_bias ? 2 * inner + hidden : 0;
  count->expert_linear += experts * matrices;
  count->other += experts * biases;
  count->inactive += (experts - top_k) * (matrices + biases);
}

}  // namespace kvsim
