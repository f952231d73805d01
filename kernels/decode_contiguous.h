// decode_attention_contiguous: one new query token per sequence against that sequence's K and
// V held in one contiguous buffer each (no paging) — the simplest cached decode.
//
//   Q    [batch, num_heads, head_dim]            fp32
//   K, V per sequence b: [context_len_b, kv_heads, head_dim]   (T = float or Eigen::half)
//   O    [batch, num_heads, head_dim]            fp32
//
// Sequence b's query is at position context_len_b - 1 and attends to seqs[b]'s positions
// (all of [0, context_len_b) unless a subset is given). fp32 accumulation throughout.
// seqs[b].block_table is ignored.
#pragma once

#include <span>

#include "kernels/attention_shape.h"
#include "kernels/decode_core.h"
#include "kernels/kv_cache_view.h"

namespace kvsim::kernels {

template <KvElement T>
struct ContiguousKv {
  std::span<const T> k;  // [context_len, kv_heads, head_dim]
  std::span<const T> v;
};

template <KvElement T>
void decode_attention_contiguous(const AttentionShape& shape, std::span<const ContiguousKv<T>> kv,
                                 std::span<const DecodeSequence> seqs, std::span<const float> q,
                                 std::span<float> out, DecodeWorkspace* ws);

}  // namespace kvsim::kernels
