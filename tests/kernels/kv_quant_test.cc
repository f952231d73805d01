// Quantization primitives, the int8 and KIVI caches, and the ND<->NZ packing pinned on small
// inputs.
#include "kernels/kv_quant.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "kernels/nz_pack.h"

namespace kvsim::kernels {
namespace {

std::vector<float> random_vector(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> x(n);
  for (float& v : x) v = normal(rng);
  return x;
}

TEST(Int8QuantTest, ErrorIsAtMostHalfAStepAndCodesAreSymmetric) {
  const std::vector<float> x = random_vector(100, 1);
  std::vector<int8_t> codes(x.size());
  const Eigen::half scale = quantize_int8(x.data(), 100, 1, codes.data());
  float max_abs = 0.0f;
  for (float v : x) max_abs = std::max(max_abs, std::fabs(v));
  EXPECT_EQ(scale, Eigen::half(max_abs / 127.0f));
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_GE(codes[i], -127);
    EXPECT_LE(std::fabs(dequantize_int8(codes[i], scale) - x[i]),
              0.5f * static_cast<float>(scale) * 1.01f);
  }
}

TEST(Int8QuantTest, ZerosAndStridedInput) {
  const float zeros[4] = {0, 0, 0, 0};
  int8_t codes[4] = {1, 1, 1, 1};
  EXPECT_EQ(static_cast<float>(quantize_int8(zeros, 4, 1, codes)), 0.0f);
  EXPECT_THAT(codes, ::testing::Each(0));
  // Every other element; max |x| = 127/128 so the scale 1/128 is exact in fp16.
  const float strided[6] = {0.9921875f, 99.0f, -0.5f, 99.0f, 1.5f / 128.0f, 99.0f};
  const Eigen::half scale = quantize_int8(strided, 3, 2, codes);
  EXPECT_EQ(static_cast<float>(scale), 1.0f / 128.0f);
  EXPECT_EQ(codes[0], 127);
  EXPECT_EQ(codes[1], -64);
  EXPECT_EQ(codes[2], 2);  // 1.5 rounds to even
}

TEST(Int4QuantTest, ErrorIsAtMostHalfAStepWithinTheRange) {
  const std::vector<float> x = random_vector(32, 2);
  std::vector<uint8_t> codes(x.size());
  const Int4Params p = quantize_int4(x.data(), 32, 1, codes.data());
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  EXPECT_EQ(p.zero, Eigen::half(*lo));
  EXPECT_EQ(p.scale, Eigen::half((*hi - *lo) / 15.0f));
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_LE(codes[i], 15);
    // Half a step, plus the fp16 rounding of the zero point.
    EXPECT_LE(std::fabs(dequantize_int4(codes[i], p) - x[i]),
              0.5f * static_cast<float>(p.scale) * 1.01f + std::fabs(*lo) * 1e-3f);
  }
}

TEST(KiviTest, QuantizedPrefixIsWholeGroupsOlderThanTheResidual) {
  const KiviConfig config{4, 8};
  const std::vector<std::pair<uint32_t, uint32_t>> expected = {
      {0, 0}, {8, 0}, {9, 0}, {11, 0}, {12, 4}, {15, 4}, {16, 8}, {100, 92}};
  for (const auto& [tokens, quantized] : expected) {
    EXPECT_EQ(kivi_num_quantized(config, tokens), quantized) << tokens;
  }
}

TEST(KiviTest, ConfigurationErrorsSayWhatIsExpected) {
  EXPECT_TRUE(validate_kivi({4, 8}, 16).is_ok());
  EXPECT_THAT(validate_kivi({0, 8}, 16).message(), ::testing::HasSubstr("positive"));
  EXPECT_THAT(validate_kivi({32, 8}, 16).message(), ::testing::HasSubstr("must divide"));
}

// Writes K, V of one sequence into an fp32 residual and quantizes its groups; the dequantized
// rows must be what kivi_round_trip (the oracle's view) says, through a scattered block table.
TEST(KiviTest, CacheRowsEqualTheReferenceRoundTrip) {
  BlockLayout layout;
  layout.block_size = 8;
  layout.kv_heads = 2;
  layout.head_dim = 11;  // odd: the last byte holds one code; value groups of 4, 4, 3
  const KiviConfig config{4, 5};
  const uint32_t tokens = 30;
  const std::vector<uint32_t> table = {5, 0, 3, 6};
  const std::vector<float> k = random_vector(tokens * layout.columns(), 3);
  const std::vector<float> v = random_vector(k.size(), 4);
  std::vector<float> res_k(7 * layout.nd_elements()), res_v(res_k.size());
  const PagedKv<float> residual{layout, res_k, res_v};
  const KvWrite write{table, 0, tokens};
  write_kv_nd<float>(residual, {&write, 1}, k, v);
  Int4KiviCache cache(layout, 7, config);
  const uint32_t quantized = kivi_num_quantized(config, tokens);
  ASSERT_EQ(quantized, 24u);
  for (uint32_t first = 0; first < quantized; first += config.group) {
    kivi_quantize_group<float>(residual, table, first, &cache);
  }
  const std::vector<float> k_ref = kivi_round_trip(config, 2, 11, k, true);
  const std::vector<float> v_ref = kivi_round_trip(config, 2, 11, v, false);
  std::vector<float> row(layout.columns());
  for (uint32_t pos = 0; pos < quantized; ++pos) {
    cache.dequantize_k_row(table[pos / 8], pos % 8, row.data());
    EXPECT_TRUE(std::equal(row.begin(), row.end(), k_ref.begin() + pos * 22)) << pos;
    cache.dequantize_v_row(table[pos / 8], pos % 8, row.data());
    EXPECT_TRUE(std::equal(row.begin(), row.end(), v_ref.begin() + pos * 22)) << pos;
  }
  // The residual positions stay exact in the reference.
  EXPECT_TRUE(std::equal(k.begin() + quantized * 22, k.end(), k_ref.begin() + quantized * 22));
  // Quantization did change the older ones.
  EXPECT_FALSE(std::equal(k.begin(), k.begin() + 22, k_ref.begin()));
}

TEST(NzPackTest, ElementsLandAtTheFractalOffsetsAndPaddingIsZero) {
  BlockLayout layout;
  layout.block_size = 2;
  layout.kv_heads = 1;
  layout.head_dim = 20;  // 2 fractal columns, the second one 4/16 used
  layout.nz_width = 16;
  layout.nz_row_align = 16;  // 2 slots padded to 16 rows
  std::vector<float> nd(layout.nd_elements());
  std::iota(nd.begin(), nd.end(), 1.0f);  // slot s, dim d holds 1 + 20 s + d
  std::vector<float> nz(layout.nz_elements(), -1.0f);
  ASSERT_EQ(nz.size(), 2u * 16u * 16u);
  pack_nd_to_nz<float>(layout, nd, nz);
  EXPECT_EQ(nz[0], 1.0f);                   // slot 0, dim 0
  EXPECT_EQ(nz[16], 21.0f);                 // slot 1, dim 0: next fractal row
  EXPECT_EQ(nz[(16 + 1) * 16 + 1], 38.0f);  // slot 1, dim 17: fractal column 1, row 1, lane 1
  EXPECT_EQ(nz[2 * 16], 0.0f);              // padding row 2
  EXPECT_EQ(nz[16 * 16 + 5], 0.0f);         // padding lane 5 of column 1 (dim 21 > 19)
  std::vector<float> back(nd.size());
  unpack_nz_to_nd<float>(layout, nz, back);
  EXPECT_EQ(back, nd);
}

}  // namespace
}  // namespace kvsim::kernels
