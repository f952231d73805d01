// ND <-> NZ conversion of whole paged caches (one tensor, K or V), block by block.
//
//   ND [num_blocks, block_size, kv_heads, head_dim]
//   NZ [num_blocks, ceil(C / n0), padded_block, n0]     C = kv_heads * head_dim
//
// Element (slot, head, dim) of block b moves from b*nd_elements + nd_offset to
// b*nz_elements + nz_offset (core/model/kv_layout.h). Packing writes zeros into the NZ padding
// (columns past C, rows past block_size); unpacking ignores it. unpack(pack(x)) == x exactly.
#pragma once

#include <span>

#include "core/model/kv_layout.h"
#include "kernels/kv_element.h"

namespace kvsim::kernels {

// nd.size() must be num_blocks * nd_elements and nz.size() num_blocks * nz_elements.
template <KvElement T>
void pack_nd_to_nz(const BlockLayout& layout, std::span<const T> nd, std::span<T> nz);

template <KvElement T>
void unpack_nz_to_nd(const BlockLayout& layout, std::span<const T> nz, std::span<T> nd);

}  // namespace kvsim::kernels
