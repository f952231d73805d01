// write_kv: the cache update — stores the K and V of a batch's new tokens into paged ND or NZ
// caches (vLLM's reshape_and_cache), converting fp32 to the storage type.
//
//   K_new, V_new  [sum_b seqlen_b, kv_heads, head_dim]  fp32, sequences back to back:
//                 | seq 0: seqlen_0 tokens | seq 1: seqlen_1 tokens | ...
//   sequence b's i-th new token is at position token_offset_b + i and lands in
//   block block_table_b[pos / block_size], slot pos % block_size, of
//     ND [num_blocks, block_size, kv_heads, head_dim]         (write_kv_nd)
//     NZ [num_blocks, ceil(C/16), padded_block, 16]          (write_kv_nz)
//
// Only the addressed slots change; NZ padding is left as it is (zero when the pool was
// zero-initialised). Preconditions (KVSIM_CHECK): block tables cover token_offset + seqlen,
// block ids are in the pool, K_new/V_new sizes match the seqlens.
#pragma once

#include <cstdint>
#include <span>

#include "kernels/kv_cache_view.h"

namespace kvsim::kernels {

struct KvWrite {
  std::span<const uint32_t> block_table;  // the sequence's block ids, in position order
  uint32_t token_offset = 0;              // position of the first new token (tokens cached)
  uint32_t seqlen = 0;                    // new tokens of this sequence
};

template <KvElement T>
void write_kv_nd(const PagedKv<T>& cache, std::span<const KvWrite> writes,
                 std::span<const float> k_new, std::span<const float> v_new);

template <KvElement T>
void write_kv_nz(const PagedKv<T>& cache, std::span<const KvWrite> writes,
                 std::span<const float> k_new, std::span<const float> v_new);

}  // namespace kvsim::kernels
