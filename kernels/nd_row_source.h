// NdRowSource: the RowSource (decode_core.h) of K and V stored as rows of kv_heads x head_dim
// elements, read in place — a contiguous per-sequence cache ([context_len, kv_heads, head_dim],
// block_size 0) or a paged ND pool (position p in block block_table[p / block_size], slot
// p % block_size). Runs of kWideRows consecutive positions inside one block (any run when
// contiguous) are served as wide tiles when head_dim is a multiple of 16.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/decode_core.h"
#include "kernels/kv_element.h"

namespace kvsim::kernels {

template <KvElement T>
class NdRowSource {
 public:
  NdRowSource(const T* k, const T* v, const DecodeSequence& seq, uint32_t kv_heads,
              uint32_t head_dim, uint32_t block_size)
      : k_(k),
        v_(v),
        seq_(seq),
        width_(size_t{kv_heads} * head_dim),
        head_dim_(head_dim),
        block_size_(block_size) {}

  RowView<T> k_row(uint32_t i, float*) const { return view(k_ + offset(i)); }
  RowView<T> v_row(uint32_t i, float*) const { return view(v_ + offset(i)); }
  void prefetch_k(uint32_t i) const { prefetch_bytes<2>(k_ + offset(i), width_ * sizeof(T)); }
  void prefetch_v(uint32_t i) const { prefetch_bytes<2>(v_ + offset(i), width_ * sizeof(T)); }

  uint32_t wide_rows(uint32_t i) const {  // wide tiles need whole 16-lane chunks
    return head_dim_ % kLanes == 0 && consecutive_run(seq_, i, block_size_) ? kWideRows : 0;
  }
  WidePrefetch wide_prefetch_k(uint32_t i, uint32_t g) const { return wide_prefetch(k_, i, g); }
  WidePrefetch wide_prefetch_v(uint32_t i, uint32_t g) const { return wide_prefetch(v_, i, g); }

 private:
  size_t offset(uint32_t i) const {
    const uint32_t pos = seq_.position(i);
    if (block_size_ == 0) return size_t{pos} * width_;
    const size_t block = seq_.block_table[pos / block_size_];
    return (block * block_size_ + pos % block_size_) * width_;
  }
  RowView<T> view(const T* row) const { return {row, head_dim_, kLanes, width_}; }
  // KV head g of the 16 rows of the wide tile at i: one run of head_dim elements per row.
  WidePrefetch wide_prefetch(const T* pool, uint32_t i, uint32_t g) const {
    if (wide_rows(i) != kWideRows) return {};
    const T* head = pool + offset(i) + size_t{g} * head_dim_;
    return {reinterpret_cast<const char*>(head), width_ * sizeof(T), kWideRows,
            cache_lines(head_dim_ * sizeof(T))};
  }

  const T* k_;
  const T* v_;
  const DecodeSequence& seq_;
  size_t width_;
  uint32_t head_dim_;
  uint32_t block_size_;  // 0: contiguous
};

}  // namespace kvsim::kernels
