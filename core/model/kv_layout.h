// Geometry of one KV-cache block in the ND and NZ ("fractal") layouts.
//
// A block holds `block_size` consecutive token slots of one layer's K (or V) tensor for the
// KV heads on one device. The two layouts store the same elements differently:
//
//   ND  [block_size, kv_heads, head_dim]            row-major (vLLM, Ascend 910)
//
//        slot 0: | h0 d0 .. d(D-1) | h1 d0 .. | ... |      offset = (slot*H + head)*D + dim
//        slot 1: | ...                              |
//
//   NZ  [ceil(C / n0), padded_block, n0]            C = kv_heads*head_dim columns,
//                                                   padded_block = ceil(block_size/16)*16
//        The C columns of a slot are cut into n0-wide fractal columns; each fractal column
//        stores all (padded) slots contiguously, n0 elements per slot:
//
//          fractal column 0            fractal column 1
//        +-------------------------+ +-------------------------+
//        | slot 0   c0 .. c(n0-1)  | | slot 0   cn0 .. c(2n0-1)| ...
//        | slot 1   c0 .. c(n0-1)  | | slot 1                  |
//        | ...                     | | ...                     |
//        | padding rows to 16k     | | padding rows            |
//        +-------------------------+ +-------------------------+
//        offset(c = head*D + dim) = ((c / n0) * padded_block + slot) * n0 + c % n0
//
//        Padding: columns up to a multiple of n0 (when C % n0 != 0) and rows up to a multiple
//        of 16 (when block_size % 16 != 0). n0 is the fractal width: 16 elements for 16-bit
//        types, 32 for int8 (32 bytes per fractal row).
// All offsets and counts are in elements of one layer's K (or V) block.
#pragma once

#include <array>
#include <cstdint>

#include "core/base/checked_math.h"

namespace kvsim {

inline constexpr uint32_t kNzRowAlign = 16;  // NZ fractal height: rows per fractal

struct BlockLayout {
  uint32_t block_size = 0;              // token slots per block
  uint32_t kv_heads = 0;                // KV heads stored in the block (per device)
  uint32_t head_dim = 0;                // elements per head (for MLA: the latent width, kv_heads 1)
  uint32_t nz_width = 16;               // NZ fractal width n0, elements
  uint32_t nz_row_align = kNzRowAlign;  // rows padded to a multiple of this (1 = no padding)

  uint64_t columns() const { return uint64_t{kv_heads} * head_dim; }
  uint64_t nz_fractal_columns() const { return ceil_div(columns(), nz_width); }
  uint64_t nz_padded_block() const {
    return ceil_div(uint64_t{block_size}, nz_row_align) * nz_row_align;
  }

  std::array<uint64_t, 3> nd_shape() const { return {block_size, kv_heads, head_dim}; }
  std::array<uint64_t, 3> nz_shape() const {
    return {nz_fractal_columns(), nz_padded_block(), nz_width};
  }
  uint64_t nd_elements() const { return uint64_t{block_size} * columns(); }
  uint64_t nz_elements() const { return nz_fractal_columns() * nz_padded_block() * nz_width; }
  // Share of the NZ block that is padding: 1 - nd_elements / nz_elements.
  double nz_padding_fraction() const {
    return 1.0 - static_cast<double>(nd_elements()) / static_cast<double>(nz_elements());
  }

  // Element offsets of (slot, head, dim) inside one block. Preconditions: slot < block_size,
  // head < kv_heads, dim < head_dim.
  uint64_t nd_offset(uint32_t slot, uint32_t head, uint32_t dim) const {
    return (uint64_t{slot} * kv_heads + head) * head_dim + dim;
  }
  uint64_t nz_offset(uint32_t slot, uint32_t head, uint32_t dim) const {
    const uint64_t column = uint64_t{head} * head_dim + dim;
    return ((column / nz_width) * nz_padded_block() + slot) * nz_width + column % nz_width;
  }
};

}  // namespace kvsim
