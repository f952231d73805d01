#include "kernels/nz_pack.h"

#include <algorithm>

#include "core/base/check.h"

namespace kvsim::kernels {
namespace {

uint64_t checked_num_blocks(const BlockLayout& layout, size_t nd_size, size_t nz_size) {
  KVSIM_CHECK(layout.nd_elements() > 0 && layout.nz_width > 0, "nz_pack: empty block layout");
  const uint64_t num_blocks = nd_size / layout.nd_elements();
  KVSIM_CHECK(
      nd_size == num_blocks * layout.nd_elements() && nz_size == num_blocks * layout.nz_elements(),
      "nz_pack: ND and NZ sizes must hold the same whole number of blocks");
  return num_blocks;
}

auto nd_offset(const BlockLayout& layout) {
  return [&layout](uint32_t s, uint32_t h, uint32_t d) { return layout.nd_offset(s, h, d); };
}
auto nz_offset(const BlockLayout& layout) {
  return [&layout](uint32_t s, uint32_t h, uint32_t d) { return layout.nz_offset(s, h, d); };
}

// Copies every element of every block from the src layout to the dst layout.
template <KvElement T, typename SrcOffset, typename DstOffset>
void copy_blocks(const BlockLayout& layout, uint64_t num_blocks, const T* src, uint64_t src_block,
                 const SrcOffset& src_offset, T* dst, uint64_t dst_block,
                 const DstOffset& dst_offset) {
  for (uint64_t b = 0; b < num_blocks; ++b) {
    for (uint32_t slot = 0; slot < layout.block_size; ++slot) {
      for (uint32_t head = 0; head < layout.kv_heads; ++head) {
        for (uint32_t dim = 0; dim < layout.head_dim; ++dim) {
          dst[b * dst_block + dst_offset(slot, head, dim)] =
              src[b * src_block + src_offset(slot, head, dim)];
        }
      }
    }
  }
}

}  // namespace

template <KvElement T>
void pack_nd_to_nz(const BlockLayout& layout, std::span<const T> nd, std::span<T> nz) {
  const uint64_t num_blocks = checked_num_blocks(layout, nd.size(), nz.size());
  std::fill(nz.begin(), nz.end(), from_float<T>(0.0f));
  copy_blocks(layout, num_blocks, nd.data(), layout.nd_elements(), nd_offset(layout), nz.data(),
              layout.nz_elements(), nz_offset(layout));
}

template <KvElement T>
void unpack_nz_to_nd(const BlockLayout& layout, std::span<const T> nz, std::span<T> nd) {
  const uint64_t num_blocks = checked_num_blocks(layout, nd.size(), nz.size());
  copy_blocks(layout, num_blocks, nz.data(), layout.nz_elements(), nz_offset(layout), nd.data(),
              layout.nd_elements(), nd_offset(layout));
}

template void pack_nd_to_nz<float>(const BlockLayout&, std::span<const float>, std::span<float>);
template void pack_nd_to_nz<Eigen::half>(const BlockLayout&, std::span<const Eigen::half>,
                                         std::span<Eigen::half>);
template void unpack_nz_to_nd<float>(const BlockLayout&, std::span<const float>, std::span<float>);
template void unpack_nz_to_nd<Eigen::half>(const BlockLayout&, std::span<const Eigen::half>,
                                           std::span<Eigen::half>);

}  // namespace kvsim::kernels
