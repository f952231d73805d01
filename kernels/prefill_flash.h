// prefill_attention_flash: causal attention for a chunk of new tokens on top of an already
// cached prefix (chunked prefill), tiled with an online softmax (FlashAttention-2 style).
//
//   Q     [sum_b num_new_b, num_heads, head_dim]        fp32, sequences back to back
//   K, V  [num_blocks, block_size, kv_heads, head_dim]  paged ND cache holding positions
//                                                       [0, num_cached_b + num_new_b) of each
//                                                       sequence (write_kv has stored the chunk)
//   O     same shape as Q
//
//   query i of sequence b is at position p = num_cached_b + i and attends keys 0..p:
//
//        keys ->  0 ........ num_cached ........ num_cached+num_new
//   q0         [ cached prefix      | x                     ]
//   q1         [ cached prefix      | x x                   ]     (causal within the chunk)
//   ...        [ cached prefix      | x x x ...             ]
//
// Per KV head, a tile of queries (all query heads of the group stacked as rows, Q pre-scaled
// by 1/sqrt(head_dim)) meets key tiles of kKeyTile positions gathered from the blocks:
//   S = Q K^T;  m' = max(m, rowmax S);  P = exp(S - m');  l = l e^(m-m') + rowsum P;
//   O = O e^(m-m') + P V;  finally O / l.
// Key tiles entirely in the future of every query of a tile are skipped. fp32 accumulation.
#pragma once

#include <cstdint>
#include <span>

#include "kernels/attention_shape.h"
#include "kernels/eigen_core.h"
#include "kernels/kv_cache_view.h"

namespace kvsim::kernels {

struct PrefillSequence {
  std::span<const uint32_t> block_table;  // block ids in position order
  uint32_t num_cached = 0;                // prefix already in the cache before this chunk
  uint32_t num_new = 0;                   // tokens of this chunk (>= 1)
};

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Tiles reused across calls.
struct FlashWorkspace {
  RowMatrix q, k, v, s, o;
  Eigen::VectorXf m, l;
};

template <KvElement T>
void prefill_attention_flash(const AttentionShape& shape, const PagedKv<const T>& cache,
                             std::span<const PrefillSequence> seqs, std::span<const float> q,
                             std::span<float> out, FlashWorkspace* ws);

}  // namespace kvsim::kernels
