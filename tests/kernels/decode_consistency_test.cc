// Paged ND, contiguous and NZ decode read the same values through different layouts; they must
// agree to 1e-6 (issue 4). By construction (simd16.h: same operations in the same order) they
// agree bit for bit, which is checked too.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "kernels/case_storage.h"
#include "kernels/decode_contiguous.h"
#include "kernels/decode_nz.h"
#include "kernels/decode_paged.h"
#include "kernels/nz_pack.h"

namespace kvsim::kernels {
namespace {

struct Shape {
  AttentionShape attention;
  uint32_t block_size;
  uint32_t nz_row_align;
};

template <KvElement T>
void expect_layouts_agree(const Shape& s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  AttentionCase c = random_case(CaseKind::kDecode, &rng);
  c.shape = s.attention;
  c.block_size = s.block_size;
  c.nz_row_align = s.nz_row_align;
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (CaseSequence& seq : c.sequences) {
    seq.q.resize(c.shape.q_width());
    seq.k.resize(size_t{seq.num_keys} * c.shape.kv_width());
    seq.v.resize(seq.k.size());
    for (auto* x : {&seq.q, &seq.k, &seq.v}) {
      for (float& value : *x) value = normal(rng);
    }
  }
  const BlockPlan plan = plan_blocks(c);
  const BlockLayout layout = layout_of(c);
  std::vector<T> nd_k(plan.num_blocks * layout.nd_elements()), nd_v(nd_k.size());
  const PagedKv<T> nd{layout, nd_k, nd_v};
  write_in_chunks(c, plan,
                  [&](const std::vector<KvWrite>& w, const std::vector<float>& k,
                      const std::vector<float>& v) { write_kv_nd<T>(nd, w, k, v); });
  std::vector<T> nz_k(plan.num_blocks * layout.nz_elements()), nz_v(nz_k.size());
  pack_nd_to_nz<T>(layout, nd_k, nz_k);
  pack_nd_to_nz<T>(layout, nd_v, nz_v);
  std::vector<std::vector<T>> contiguous;
  std::vector<ContiguousKv<T>> kv;
  std::vector<DecodeSequence> seqs;
  std::vector<float> q;
  for (size_t b = 0; b < c.sequences.size(); ++b) {
    const CaseSequence& seq = c.sequences[b];
    for (const auto* x : {&seq.k, &seq.v}) {
      contiguous.emplace_back(x->size());
      convert_from_float(x->data(), contiguous.back().data(), x->size());
    }
    q.insert(q.end(), seq.q.begin(), seq.q.end());
    seqs.push_back({plan.tables[b], seq.num_keys, seq.positions, {}});
  }
  for (size_t b = 0; b < c.sequences.size(); ++b)
    kv.push_back({contiguous[2 * b], contiguous[2 * b + 1]});
  std::vector<float> out_contiguous(q.size()), out_paged(q.size()), out_nz(q.size());
  DecodeWorkspace ws;
  decode_attention_contiguous<T>(c.shape, kv, seqs, q, out_contiguous, &ws);
  decode_attention_paged<T>(c.shape, nd, seqs, q, out_paged, &ws);
  decode_attention_nz<T>(c.shape, PagedKv<const T>{layout, nz_k, nz_v}, seqs, q, out_nz, &ws);
  for (size_t i = 0; i < q.size(); ++i) {
    const float scale = std::max(1.0f, std::fabs(out_contiguous[i]));
    ASSERT_LE(std::fabs(out_paged[i] - out_contiguous[i]), 1e-6f * scale) << i;
    ASSERT_LE(std::fabs(out_nz[i] - out_contiguous[i]), 1e-6f * scale) << i;
  }
  EXPECT_EQ(out_paged, out_contiguous);
  EXPECT_EQ(out_nz, out_contiguous);
}

class DecodeConsistencyTest : public ::testing::TestWithParam<Shape> {};

TEST_P(DecodeConsistencyTest, PagedContiguousAndNzAgreeFp32) {
  for (uint64_t seed = 1; seed <= 5; ++seed) expect_layouts_agree<float>(GetParam(), seed);
}

TEST_P(DecodeConsistencyTest, PagedContiguousAndNzAgreeFp16) {
  for (uint64_t seed = 1; seed <= 5; ++seed) expect_layouts_agree<Eigen::half>(GetParam(), seed);
}

std::string shape_name(const ::testing::TestParamInfo<Shape>& info) {
  const Shape& s = info.param;
  std::ostringstream name;
  name << "h" << s.attention.num_heads << "_kv" << s.attention.kv_heads << "_d"
       << s.attention.head_dim << "_block" << s.block_size << "_align" << s.nz_row_align;
  return name.str();
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DecodeConsistencyTest,
    ::testing::Values(Shape{{32, 8, 128}, 16, 16},  // the benchmark's shape (GQA 4)
                      Shape{{8, 4, 16}, 16, 16},    // the tiny model's shape
                      Shape{{4, 4, 64}, 7, 1},      // MHA, block not a multiple of 16
                      Shape{{6, 2, 20}, 24, 16},    // head_dim not a multiple of 16
                      Shape{{5, 1, 100}, 5, 1}),    // MQA, odd sizes
    shape_name);

}  // namespace
}  // namespace kvsim::kernels
