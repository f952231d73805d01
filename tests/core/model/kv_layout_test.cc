#include "core/model/kv_layout.h"

#include <gtest/gtest.h>

#include <set>

namespace kvsim {
namespace {

BlockLayout layout(uint32_t block, uint32_t heads, uint32_t dim, uint32_t n0) {
  BlockLayout l;
  l.block_size = block;
  l.kv_heads = heads;
  l.head_dim = dim;
  l.nz_width = n0;
  return l;
}

TEST(KvLayoutTest, ShapesAndPadding) {
  const BlockLayout l = layout(128, 8, 128, 16);
  EXPECT_EQ(l.nd_shape(), (std::array<uint64_t, 3>{128, 8, 128}));
  EXPECT_EQ(l.nz_shape(), (std::array<uint64_t, 3>{64, 128, 16}));
  EXPECT_DOUBLE_EQ(l.nz_padding_fraction(), 0.0);
  const BlockLayout padded = layout(20, 3, 20, 16);  // 60 columns -> 64, 20 rows -> 32
  EXPECT_EQ(padded.nz_shape(), (std::array<uint64_t, 3>{4, 32, 16}));
  EXPECT_DOUBLE_EQ(padded.nz_padding_fraction(), 1.0 - (20.0 * 60) / (4 * 32 * 16));
}

TEST(KvLayoutTest, OffsetsFollowTheDocumentedFormulas) {
  const BlockLayout l = layout(16, 4, 64, 16);
  EXPECT_EQ(l.nd_offset(3, 2, 5), (3u * 4 + 2) * 64 + 5);
  const uint64_t c = 2 * 64 + 5;
  EXPECT_EQ(l.nz_offset(3, 2, 5), ((c / 16) * 16 + 3) * 16 + c % 16);
}

// Every element lands on a distinct cell inside the block in both layouts, and the NZ cells
// left over are exactly the padding.
TEST(KvLayoutTest, OffsetsAreInjectiveAndInBounds) {
  for (const BlockLayout& l :
       {layout(16, 2, 16, 16), layout(20, 3, 20, 16), layout(7, 1, 33, 32)}) {
    std::set<uint64_t> nd;
    std::set<uint64_t> nz;
    for (uint32_t slot = 0; slot < l.block_size; ++slot) {
      for (uint32_t head = 0; head < l.kv_heads; ++head) {
        for (uint32_t dim = 0; dim < l.head_dim; ++dim) {
          const uint64_t a = l.nd_offset(slot, head, dim);
          const uint64_t b = l.nz_offset(slot, head, dim);
          EXPECT_LT(a, l.nd_elements());
          EXPECT_LT(b, l.nz_elements());
          nd.insert(a);
          nz.insert(b);
        }
      }
    }
    EXPECT_EQ(nd.size(), l.nd_elements());
    EXPECT_EQ(nz.size(), l.nd_elements());
  }
}

}  // namespace
}  // namespace kvsim
