#include <gtest/gtest.h>

#include <fstream>

#include "core/base/units.h"
#include "core/model/load_spec.h"
#include "simulator/cost/calibration_table.h"
#include "simulator/cost/roofline_cost_model.h"
#include "tests/simulator/cost/tiny_shapes.h"

namespace kvsim::sim {
namespace {

using cost_test::tiny_device;
using cost_test::tiny_model;

const ModelSpec kTinyModel = tiny_model(1'000'000'000);

RooflineCostModel make_model(uint32_t tp) {
  CapacityQuery query;
  query.block_size = 16;
  query.tp = tp;
  const auto capacity = compute_capacity(kTinyModel, nullptr, query);
  EXPECT_TRUE(capacity.is_ok()) << capacity.status().message();
  CostModelConfig config;
  config.compute_efficiency = 0.5;
  config.bandwidth_efficiency = 0.5;
  config.interconnect_efficiency = 0.5;
  config.iteration_overhead_s = 1e-3;
  config.allreduce_latency_s = 1e-5;
  return RooflineCostModel(roofline_inputs(kTinyModel, tiny_device(), *capacity, DType::kFp16, tp),
                           config);
}

TEST(RooflineCostModel, PrefillByHand) {
  BatchShape batch;
  batch.add(100, 0, true, true);
  EXPECT_EQ(batch.attention_pairs, 5050u);  // 100 * 101 / 2
  const IterationCost cost = make_model(1).breakdown(batch);
  // FLOPs = 2 x 1e9 x 100 + 4 x 2 layers x 4 heads x 64 x 5050 = 200,010,342,400
  EXPECT_DOUBLE_EQ(cost.compute_s, 200'010'342'400.0 / (100e12 * 0.5));
  // bytes = 2e9 weights + 100 tokens x 2 layers x 2 x 4 heads x 64 x 2 B = 2,000,204,800
  EXPECT_DOUBLE_EQ(cost.memory_s, 2'000'204'800.0 / (1e12 * 0.5));
  EXPECT_EQ(cost.communication_s, 0.0);
  EXPECT_DOUBLE_EQ(cost.total_s(), cost.memory_s + 1e-3);
  EXPECT_EQ(make_model(1).iteration_ns(batch), 5'000'410);  // 5.0004096 ms, rounded
}

TEST(RooflineCostModel, DecodeReadsTheCachedContext) {
  BatchShape batch;
  batch.add(1, 1000, false, true);
  batch.add(1, 3000, false, true);
  EXPECT_EQ(batch.context_tokens, 4000u);
  EXPECT_EQ(batch.attention_pairs, 4002u);
  const IterationCost cost = make_model(1).breakdown(batch);
  EXPECT_DOUBLE_EQ(cost.memory_s, (2e9 + 4002.0 * 2048) / 5e11);
  EXPECT_GT(cost.memory_s, cost.compute_s);  // decode is memory-bound
}

TEST(RooflineCostModel, TensorParallelSplitsWorkAndAddsAllReduces) {
  BatchShape batch;
  batch.add(1000, 0, true, true);
  const IterationCost one = make_model(1).breakdown(batch);
  const IterationCost two = make_model(2).breakdown(batch);
  EXPECT_DOUBLE_EQ(two.compute_s, one.compute_s / 2);
  // 2 all-reduces x 2 layers, each 2 (tp-1)/tp x 1000 x 256 x 2 B over 50 GB/s + 10 us.
  EXPECT_DOUBLE_EQ(two.communication_s, 4 * (512000.0 / 50e9 + 1e-5));
}

// 8-bit weights run at the chip's 8-bit rate only where it has those tensor cores: an A100 has
// INT8 but no FP8 (vLLM runs an FP8 checkpoint weight-only there, at the 16-bit rate), an
// H100 has both; the presets' dense figures.
TEST(RooflineCostModel, Fp8WeightsRunAtTheFp8RateOnlyWhereTheChipHasIt) {
  const DeviceSpec a100 = *load_device("a100-80g");
  const DeviceSpec h100 = *load_device("h100-sxm");
  EXPECT_DOUBLE_EQ(device_peak_flops(a100, DType::kFp8), 312e12);
  EXPECT_DOUBLE_EQ(device_peak_flops(a100, DType::kInt8), 624e12);
  EXPECT_DOUBLE_EQ(device_peak_flops(a100, DType::kBf16), 312e12);
  EXPECT_DOUBLE_EQ(device_peak_flops(h100, DType::kFp8), 1979e12);
  EXPECT_DOUBLE_EQ(device_peak_flops(h100, DType::kFp16), 989.5e12);
}

TEST(CalibratedCostModel, InterpolatesBilinearlyAndExtendsLinearly) {
  const std::string path = ::testing::TempDir() + "/calibration.csv";
  std::ofstream(path) << "new_tokens,context_tokens,time_ms\n"
                         "1,0,10\n1,1000,20\n101,0,30\n101,1000,60\n";
  auto model = CalibratedCostModel::load(path);
  ASSERT_TRUE(model.is_ok()) << model.status().message();
  EXPECT_DOUBLE_EQ((*model)->time_s(51, 500), 0.030);
  EXPECT_DOUBLE_EQ((*model)->time_s(101, 1000), 0.060);
  EXPECT_DOUBLE_EQ((*model)->time_s(201, 0), 0.050);  // beyond the grid: the last slope
  EXPECT_DOUBLE_EQ((*model)->time_s(0, 0), 0.010);    // never below the fastest measurement
  BatchShape batch;
  batch.add(51, 500, true, true);
  EXPECT_EQ((*model)->iteration_ns(batch), 30'000'000);
}

TEST(CalibratedCostModel, BadFilesNameTheProblem) {
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/c1.csv") << "new_tokens,context_tokens,time_ms\n1,0,10\n2,5,x\n";
  auto bad = CalibratedCostModel::load(dir + "/c1.csv");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("c1.csv:3"), std::string::npos) << bad.status().message();
  std::ofstream(dir + "/c2.csv") << "new_tokens,context_tokens,time_ms\n1,0,10\n2,5,20\n";
  auto holes = CalibratedCostModel::load(dir + "/c2.csv");
  ASSERT_FALSE(holes.is_ok());
  EXPECT_NE(holes.status().message().find("full grid"), std::string::npos);
  std::ofstream(dir + "/c3.csv") << "tokens,time\n1,2\n";
  EXPECT_FALSE(CalibratedCostModel::load(dir + "/c3.csv").is_ok());
}

}  // namespace
}  // namespace kvsim::sim
