// The vector primitives the kernels' bit-for-bit agreement rests on.
#include "kernels/simd16.h"

#include <gtest/gtest.h>

#include <random>

namespace kvsim::kernels {
namespace {

TEST(Simd16Test, SixteenWayReductionEqualsSixteenSingleReductionsBitForBit) {
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 100.0f);
  for (int trial = 0; trial < 200; ++trial) {
    float values[16][16];
    Vec16 in[16];
    for (int t = 0; t < 16; ++t) {
      for (float& x : values[t]) x = normal(rng);
      in[t] = load16(values[t]);
    }
    float sums[16];
    reduce16x16(in, sums);
    for (int t = 0; t < 16; ++t) ASSERT_EQ(sums[t], reduce16(in[t])) << "vector " << t;
  }
}

TEST(Simd16Test, ReductionFollowsTheHalvingTree) {
  // 1e8 + 1 - 1e8 ... : the association decides the result, so pin it.
  float x[16] = {1e8f, 1.0f, 0, 0, 0, 0, 0, 0, -1e8f, 1.0f, 0, 0, 0, 0, 0, 0};
  // Halving: lane 0 + lane 8 = 0 first, so both ones survive.
  EXPECT_EQ(reduce16(load16(x)), 2.0f);
}

TEST(Simd16Test, DotAndAxpyHandleTailsAndHalfStorage) {
  float q[37], k[37], y[37];
  Eigen::half kh[37];
  double expected = 0.0;
  for (int i = 0; i < 37; ++i) {
    q[i] = 0.5f * static_cast<float>(i % 7) - 1.0f;
    k[i] = static_cast<float>(i) / 8.0f;  // exact in fp16
    kh[i] = Eigen::half(k[i]);
    y[i] = 1.0f;
    expected += static_cast<double>(q[i]) * k[i];
  }
  EXPECT_NEAR(dot16(q, k, 37), expected, 1e-4);
  EXPECT_EQ(dot16(q, k, 37), dot16(q, kh, 37));  // same values, same order
  axpy16(2.0f, kh, y, 37);
  for (int i = 0; i < 37; ++i) EXPECT_EQ(y[i], 1.0f + 2.0f * k[i]);
}

}  // namespace
}  // namespace kvsim::kernels
