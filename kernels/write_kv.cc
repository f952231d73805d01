#include "kernels/write_kv.h"

#include <algorithm>

#include "core/base/check.h"
#include "core/base/checked_math.h"

namespace kvsim::kernels {
namespace {

// Checks the batch and returns the number of blocks in the pool.
template <KvElement T>
uint64_t check_writes(const PagedKv<T>& cache, uint64_t block_elements,
                      std::span<const KvWrite> writes, size_t k_size, size_t v_size) {
  const BlockLayout& layout = cache.layout;
  KVSIM_CHECK(layout.block_size > 0 && block_elements > 0, "write_kv: empty block layout");
  KVSIM_CHECK(cache.k.size() == cache.v.size() && cache.k.size() % block_elements == 0,
              "write_kv: K and V pools must hold whole blocks");
  const uint64_t num_blocks = cache.k.size() / block_elements;
  uint64_t tokens = 0;
  for (const KvWrite& w : writes) {
    const uint64_t end = uint64_t{w.token_offset} + w.seqlen;
    const uint64_t blocks = ceil_div(end, layout.block_size);
    KVSIM_CHECK(w.block_table.size() >= blocks, "write_kv: block table too short");
    for (uint64_t b = w.token_offset / layout.block_size; b < blocks; ++b) {
      KVSIM_CHECK(w.block_table[b] < num_blocks, "write_kv: block id out of range");
    }
    tokens += w.seqlen;
  }
  KVSIM_CHECK(k_size == tokens * layout.columns() && v_size == k_size,
              "write_kv: K_new/V_new must be [sum seqlen, kv_heads, head_dim]");
  return num_blocks;
}

// Calls store(dst_block, slot, src_row) for every new token of the batch.
template <KvElement T, typename Store>
void for_each_token(const PagedKv<T>& cache, uint64_t block_elements,
                    std::span<const KvWrite> writes, std::span<const float> k_new,
                    std::span<const float> v_new, const Store& store) {
  const uint32_t block_size = cache.layout.block_size;
  const uint64_t width = cache.layout.columns();
  size_t row = 0;
  for (const KvWrite& w : writes) {
    for (uint32_t i = 0; i < w.seqlen; ++i, ++row) {
      const uint32_t pos = w.token_offset + i;
      const size_t base = size_t{w.block_table[pos / block_size]} * block_elements;
      store(cache.k.data() + base, pos % block_size, k_new.data() + row * width);
      store(cache.v.data() + base, pos % block_size, v_new.data() + row * width);
    }
  }
}

}  // namespace

template <KvElement T>
void write_kv_nd(const PagedKv<T>& cache, std::span<const KvWrite> writes,
                 std::span<const float> k_new, std::span<const float> v_new) {
  const BlockLayout& layout = cache.layout;
  check_writes(cache, layout.nd_elements(), writes, k_new.size(), v_new.size());
  const uint64_t width = layout.columns();
  for_each_token(cache, layout.nd_elements(), writes, k_new, v_new,
                 [&](T* block, uint32_t slot, const float* src) {
                   convert_from_float(src, block + slot * width, width);
                 });
}

template <KvElement T>
void write_kv_nz(const PagedKv<T>& cache, std::span<const KvWrite> writes,
                 std::span<const float> k_new, std::span<const float> v_new) {
  const BlockLayout& layout = cache.layout;
  KVSIM_CHECK(layout.nz_width > 0, "write_kv_nz: NZ fractal width must be > 0");
  check_writes(cache, layout.nz_elements(), writes, k_new.size(), v_new.size());
  const uint64_t width = layout.columns();
  const uint64_t n0 = layout.nz_width;
  const uint64_t padded = layout.nz_padded_block();
  for_each_token(cache, layout.nz_elements(), writes, k_new, v_new,
                 [&](T* block, uint32_t slot, const float* src) {
                   for (uint64_t f = 0; f * n0 < width; ++f) {
                     const uint64_t count = std::min(n0, width - f * n0);
                     convert_from_float(src + f * n0, block + (f * padded + slot) * n0, count);
                   }
                 });
}

template void write_kv_nd<float>(const PagedKv<float>&, std::span<const KvWrite>,
                                 std::span<const float>, std::span<const float>);
template void write_kv_nd<Eigen::half>(const PagedKv<Eigen::half>&, std::span<const KvWrite>,
                                       std::span<const float>, std::span<const float>);
template void write_kv_nz<float>(const PagedKv<float>&, std::span<const KvWrite>,
                                 std::span<const float>, std::span<const float>);
template void write_kv_nz<Eigen::half>(const PagedKv<Eigen::half>&, std::span<const KvWrite>,
                                       std::span<const float>, std::span<const float>);

}  // namespace kvsim::kernels
