// Views of one layer's KV cache as the kernels read and write it, and the per-sequence
// description of a decode step. The views own nothing: storage lives with the caller (the
// forward pass keeps one pool per layer; block ids come from the KvCacheManager's block table).
//
// Paged ND cache (vLLM's layout), K and V each:
//
//   [num_blocks, block_size, kv_heads, head_dim]
//
//     block b ─┬─ slot 0: | head 0: d0 .. d(D-1) | head 1: ... | ... |   C = kv_heads*head_dim
//              ├─ slot 1: | ...                                      |
//              └─ ...
//   token at position p of a sequence: block = block_table[p / block_size],
//   slot = p % block_size; element offset = block * block_size*C + BlockLayout::nd_offset.
//
// Paged NZ cache (Ascend's fractal layout), K and V each:
//
//   [num_blocks, ceil(C / 16), padded_block, 16]      padded_block = block_size rounded up to
//                                                     layout.nz_row_align (16 as the capacity
//                                                     planner assumes; 1 = no row padding)
//     block b ─┬─ fractal column 0: slot 0 c0..c15 | slot 1 c0..c15 | ... | padding rows
//              ├─ fractal column 1: slot 0 c16..c31 | ...
//              └─ ...
//   element offset = block * nz_elements + BlockLayout::nz_offset (core/model/kv_layout.h is the
//   one place for this geometry; the kernels use it with nz_width 16).
//
// Contiguous cache of one sequence: [context_len, kv_heads, head_dim].
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

#include "core/model/kv_layout.h"
#include "kernels/kv_element.h"

namespace kvsim::kernels {

// A paged ND or NZ cache of one layer (which of the two is the kernel's contract: the
// *_paged kernels read ND, the *_nz kernels NZ). E is T (writable) or const T (read-only).
template <typename E>
struct PagedKv {
  BlockLayout layout;  // block geometry; layout.nz_width must be 16 for NZ
  std::span<E> k;      // num_blocks x (nd_elements or nz_elements)
  std::span<E> v;      // same size as k

  // A writable cache is also a read-only one.
  operator PagedKv<const E>() const  // NOLINT: implicit by design
      requires(!std::is_const_v<E>) {
    return {layout, k, v};
  }
};

// One sequence of a decode batch. Its new token's K and V are already in the cache
// (write_kv runs first), so it attends to positions [0, context_len) or the subset given.
struct DecodeSequence {
  std::span<const uint32_t> block_table;  // block ids in position order (paged kernels)
  uint32_t context_len = 0;               // tokens cached, the new one included (>= 1)
  // The positions attended, ascending, each < context_len; empty = all of [0, context_len).
  // A retention policy's kept positions (evicted ones are simply not listed).
  std::span<const uint32_t> positions;
  // Optional, one per attended position: += the softmax weight it received, summed over the
  // query heads (H2O's accumulated attention score).
  std::span<float> attention_sums;

  uint32_t num_attended() const {
    return positions.empty() ? context_len : static_cast<uint32_t>(positions.size());
  }
  uint32_t position(uint32_t i) const { return positions.empty() ? i : positions[i]; }
};

}  // namespace kvsim::kernels
