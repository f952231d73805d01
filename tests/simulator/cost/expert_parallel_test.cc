// The EP communication model and the slowest rank's load (simulator/cost/expert_parallel.h),
// against hand-computed numbers for DeepSeek-V3's MoE layer (7168 hidden, 256 experts, top-8).
#include "simulator/cost/expert_parallel.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kvsim::sim {
namespace {

constexpr double kHidden = 7168;
constexpr uint32_t kExperts = 256;
constexpr uint32_t kTopK = 8;
constexpr double kH100NvlinkGbps = 900;  // presets/devices/h100-sxm.yaml, both ways

AllToAllInputs v3_inputs(uint32_t ep, double tokens) {
  AllToAllInputs in;
  in.ep = ep;
  in.tokens = tokens;
  in.top_k = kTopK;
  in.hidden = kHidden;
  in.activation_bytes = 2;
  in.nvlink_gbps = kH100NvlinkGbps;
  in.latency_s = 5e-6;
  return in;
}

// The bytes over each link and the bottleneck's bandwidth of a normal-mode all-to-all.
void expect_links(const AllToAllCost& c, double nvlink_bytes, double rdma_bytes, double gbps) {
  EXPECT_DOUBLE_EQ(c.nvlink_bytes, nvlink_bytes);
  EXPECT_DOUBLE_EQ(c.rdma_bytes, rdma_bytes);
  EXPECT_NEAR(c.bandwidth_gbps, gbps, 1e-9);
}

TEST(ExpertParallelTest, ExpectedMaxOfStandardNormalsMatchesClosedForms) {
  EXPECT_DOUBLE_EQ(expected_max_standard_normal(1), 0.0);
  EXPECT_NEAR(expected_max_standard_normal(2), 1 / std::sqrt(M_PI), 1e-9);        // 0.5642
  EXPECT_NEAR(expected_max_standard_normal(3), 3 / (2 * std::sqrt(M_PI)), 1e-9);  // 0.8463
  // Tabulated (Harter 1961): e_8 = 1.42360, e_30 = 2.04276.
  EXPECT_NEAR(expected_max_standard_normal(8), 1.42360, 1e-5);
  EXPECT_NEAR(expected_max_standard_normal(30), 2.04276, 1e-5);
}

TEST(ExpertParallelTest, SlowestRankLoadByHand) {
  // 128 tokens over 2 ranks of 128 experts: mean 512 copies, variance
  // 128 x 8 x 1/4 x 248/255 = 248.97, max = 512 + 15.779 x sqrt(2) x 0.56419 = 524.590.
  EXPECT_NEAR(expected_max_rank_rows(128, kExperts, kTopK, 2, expected_max_standard_normal(2)),
              524.58971, 1e-4);
  // One rank holds every expert: its load is every copy.
  EXPECT_DOUBLE_EQ(expected_max_rank_rows(100, kExperts, kTopK, 1, 0), 800.0);
  // Top-4 of 4 experts over 2 ranks: every token sends exactly 2 copies to each rank.
  EXPECT_DOUBLE_EQ(expected_max_rank_rows(10, 4, 4, 2, expected_max_standard_normal(2)), 20.0);
}

TEST(ExpertParallelTest, ModeFollowsSglangAuto) {
  EXPECT_EQ(deepep_mode(true), DeepEpMode::kNormal);
  EXPECT_EQ(deepep_mode(false), DeepEpMode::kLowLatency);
  EXPECT_EQ(deepep_mode_name(DeepEpMode::kLowLatency), "low_latency");
}

TEST(ExpertParallelTest, NormalDispatchInOneNodeGoesOverNvlink) {
  // EP 8: 128 x 8 x 7168 x 2 = 14,680,064 bytes, 7/8 leave: 12,845,056 over NVLink at
  // 153/200 x 450 = 344.25 GB/s: 37.313 us, + 5 us latency.
  const AllToAllCost d =
      all_to_all_cost(AllToAll::kDispatch, DeepEpMode::kNormal, v3_inputs(8, 128));
  EXPECT_DOUBLE_EQ(d.bytes, 14680064.0);
  expect_links(d, 12845056.0, 0.0, 344.25);
  EXPECT_NEAR(d.time_s * 1e6, 5 + 37.31316, 1e-4);
  // Combine: the same bytes at 158/200 x 450 = 355.5 GB/s.
  const AllToAllCost c =
      all_to_all_cost(AllToAll::kCombine, DeepEpMode::kNormal, v3_inputs(8, 128));
  EXPECT_NEAR(c.transfer_s * 1e6, 12845056.0 / 355.5e9 * 1e6, 1e-9);
}

TEST(ExpertParallelTest, NormalDispatchAcrossNodesIsGatedByRdma) {
  // EP 32: 31/32 of 14,680,064 leave (14,221,312); 7 of the 31 peers share the node
  // (3,211,264 bytes, 9.33 us on NVLink), 24 do not: 11,010,048 bytes at 58 GB/s = 189.83 us.
  const AllToAllCost d =
      all_to_all_cost(AllToAll::kDispatch, DeepEpMode::kNormal, v3_inputs(32, 128));
  expect_links(d, 3211264.0, 11010048.0, 58.0);
  EXPECT_NEAR(d.transfer_s * 1e6, 189.82841, 1e-4);
}

TEST(ExpertParallelTest, LowLatencyDispatchSendsFp8AndReproducesDeepEpsPoint) {
  // DeepEP's own condition (128 tokens, top-8, 7168 hidden, EP 8): fp8 + scales is
  // 7168 + 224 bytes a copy, 7,569,408 bytes at 98 GB/s = 77.24 us (its table: 77 us).
  const AllToAllCost d =
      all_to_all_cost(AllToAll::kDispatch, DeepEpMode::kLowLatency, v3_inputs(8, 128));
  EXPECT_DOUBLE_EQ(d.bytes, 7569408.0);
  EXPECT_NEAR(d.transfer_s * 1e6, 77.23886, 1e-4);
  // Combine in bf16 at EP 16: 14,680,064 bytes at 74 GB/s.
  const AllToAllCost c =
      all_to_all_cost(AllToAll::kCombine, DeepEpMode::kLowLatency, v3_inputs(16, 128));
  EXPECT_DOUBLE_EQ(c.bytes, 14680064.0);
  EXPECT_NEAR(c.transfer_s, 14680064.0 / 74e9, 1e-15);
}

}  // namespace
}  // namespace kvsim::sim
