// decode_attention_paged: one new query token per sequence against K and V in paged ND blocks,
// read through each sequence's block table (a batch of sequences of different lengths).
//
//   Q      [batch, num_heads, head_dim]                     fp32
//   K, V   [num_blocks, block_size, kv_heads, head_dim]     T = float or Eigen::half
//   O      [batch, num_heads, head_dim]                     fp32
//
//   block table of sequence b:  [ 7 | 2 | 9 ]  block_size 4, context_len 10
//   positions  0..3 -> block 7, 4..7 -> block 2, 8..9 -> block 9 (slots 0, 1)
//
// Sequence b's query is at position context_len_b - 1 and attends to its listed positions
// (all of [0, context_len_b) by default). Results equal decode_attention_contiguous on the
// same values bit for bit (same arithmetic, same order).
#pragma once

#include <span>

#include "kernels/attention_shape.h"
#include "kernels/decode_core.h"
#include "kernels/kv_cache_view.h"

namespace kvsim::kernels {

template <KvElement T>
void decode_attention_paged(const AttentionShape& shape, const PagedKv<const T>& cache,
                            std::span<const DecodeSequence> seqs, std::span<const float> q,
                            std::span<float> out, DecodeWorkspace* ws);

}  // namespace kvsim::kernels
