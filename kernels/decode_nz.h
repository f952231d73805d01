// decode_attention_nz: one new query token per sequence against K and V in paged NZ
// ("fractal") blocks, read in place — the cache is never unpacked to ND.
//
//   Q      [batch, num_heads, head_dim]                          fp32
//   K, V   [num_blocks, ceil(C/16), padded_block, 16]            T = float or Eigen::half
//   O      [batch, num_heads, head_dim]                          fp32
//
//   one NZ block, C = 2 heads x 32 dims, block_size 4 (rows padded to 16):
//     fractal col 0 (head 0, d 0-15)  : slot0[16] slot1[16] slot2[16] slot3[16] pad x12
//     fractal col 1 (head 0, d 16-31) : slot0[16] ...
//     fractal col 2 (head 1, d 0-15)  : ...
//     fractal col 3 (head 1, d 16-31) : ...
//
// When head_dim is a multiple of 16 every fractal column belongs to one head: the kernel walks
// each block column by column, each 16-element fractal row feeding the running dot products
// (pass 1) or weighted sums (pass 2) of the query heads of that KV head — memory is read in
// its stored order. Otherwise fractal rows straddle heads and the kernel gathers each slot's
// row from its fractal rows (16 elements at a time) into a small buffer.
// Either way the arithmetic and its order equal decode_attention_paged's, so the two agree bit
// for bit on the same values. Requires layout.nz_width == 16.
#pragma once

#include <span>

#include "kernels/attention_shape.h"
#include "kernels/decode_core.h"
#include "kernels/kv_cache_view.h"

namespace kvsim::kernels {

template <KvElement T>
void decode_attention_nz(const AttentionShape& shape, const PagedKv<const T>& cache,
                         std::span<const DecodeSequence> seqs, std::span<const float> q,
                         std::span<float> out, DecodeWorkspace* ws);

}  // namespace kvsim::kernels
