#include "kernels/nz_pack.h"

#include <algorithm>

#include "core/check.h"

namespace kvsim::kernels {
namespace {

uint64_t checked_num_blocks(const BlockLayout& layout, size_t nd_size, size_t nz_size) {
  KVSIM_CHECK(layout.nd_elements() > 0 && layout.nz_width > 0, "nz_pack: empty block layout");
  const uint64_t num_blocks = nd_size / layout.nd_elements();
  KVSIM_CHECK(nd_size == num_blocks * layout.nd_elements() &&
                  nz_size == num_blocks * layout.nz_elements(),
              "nz_pack: ND and NZ sizes must hold the same whole number of blocks");
  return num_blocks;
}

}  // namespace

template <KvElement T>
void pack_nd_to_nz(const BlockLayout& layout, std::span<const T> nd, std::span<T> nz) {
  const uint64_t num_blocks = checked_num_blocks(layout, nd.size(), nz.size());
  std::fill(nz.begin(), nz.end(), from_float<T>(0.0f));
  for (uint64_t b = 0; b < num_blocks; ++b) {
    const T* src = nd.data() + b * layout.nd_elements();
    T* dst = nz.data() + b * layout.nz_elements();
    for (uint32_t slot = 0; slot < layout.block_size; ++slot) {
      for (uint32_t head = 0; head < layout.kv_heads; ++head) {
        for (uint32_t dim = 0; dim < layout.head_dim; ++dim) {
          dst[layout.nz_offset(slot, head, dim)] = src[layout.nd_offset(slot, head, dim)];
        }
      }
    }
  }
}

template <KvElement T>
void unpack_nz_to_nd(const BlockLayout& layout, std::span<const T> nz, std::span<T> nd) {
  const uint64_t num_blocks = checked_num_blocks(layout, nd.size(), nz.size());
  for (uint64_t b = 0; b < num_blocks; ++b) {
    const T* src = nz.data() + b * layout.nz_elements();
    T* dst = nd.data() + b * layout.nd_elements();
    for (uint32_t slot = 0; slot < layout.block_size; ++slot) {
      for (uint32_t head = 0; head < layout.kv_heads; ++head) {
        for (uint32_t dim = 0; dim < layout.head_dim; ++dim) {
          dst[layout.nd_offset(slot, head, dim)] = src[layout.nz_offset(slot, head, dim)];
        }
      }
    }
  }
}

template void pack_nd_to_nz<float>(const BlockLayout&, std::span<const float>, std::span<float>);
template void pack_nd_to_nz<Eigen::half>(const BlockLayout&, std::span<const Eigen::half>,
                                         std::span<Eigen::half>);
template void unpack_nz_to_nd<float>(const BlockLayout&, std::span<const float>,
                                     std::span<float>);
template void unpack_nz_to_nd<Eigen::half>(const BlockLayout&, std::span<const Eigen::half>,
                                           std::span<Eigen::half>);

}  // namespace kvsim::kernels
