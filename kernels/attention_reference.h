// attention_reference: causal attention recomputed from the Q, K, V of every position, with
// no cache. It is the oracle every other kernel is validated against, so it favours accuracy
// over speed: scores, softmax and the weighted sum of V are computed in double precision.
//
//   Q  [num_queries, num_heads, head_dim]   query i is at position num_keys - num_queries + i
//   K  [num_keys,    kv_heads,  head_dim]   K and V of positions 0 .. num_keys-1
//   V  [num_keys,    kv_heads,  head_dim]
//   O  [num_queries, num_heads, head_dim]
//
//   O[i, h] = sum_{j <= pos(i)} softmax_j( Q[i,h] . K[j, h/g] / sqrt(head_dim) ) V[j, h/g]
//
// with g = num_heads / kv_heads (MHA, GQA, MQA). All tensors are row-major fp32.
// Preconditions (KVSIM_CHECK): 1 <= num_queries <= num_keys, span sizes match the shapes.
#pragma once

#include <cstdint>
#include <span>

#include "kernels/attention_shape.h"

namespace kvsim::kernels {

void attention_reference(const AttentionShape& shape, uint32_t num_queries, uint32_t num_keys,
                         std::span<const float> q, std::span<const float> k,
                         std::span<const float> v, std::span<float> out);

}  // namespace kvsim::kernels
