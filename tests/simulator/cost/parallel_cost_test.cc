// The operator cost model over a parallel layout (core/engine/parallel_layout.h): attention
// per DP rank, the MoE layer's dispatch and combine under EP, the expert GEMMs at the slowest
// rank's load — DeepSeek-V3 on H100 by hand — and a TP-only layout exactly as before.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "core/model/load_spec.h"
#include "simulator/cost/expert_parallel.h"
#include "simulator/cost/operator_cost_model.h"
#include "simulator/cost/operator_fits.h"

namespace kvsim::sim {
namespace {

struct V3 {
  ModelSpec model = *load_model("deepseek-v3");
  DeviceSpec device = *load_device("h100-sxm");
};

OperatorInputs v3_inputs(const V3& v3, const ParallelLayout& layout) {
  CapacityQuery query;
  query.tp = layout.tp;
  query.dp = layout.dp;
  query.ep = layout.ep;
  query.weight_dtype = DType::kFp8;
  const auto capacity = compute_capacity(v3.model, &v3.device, query);
  EXPECT_TRUE(capacity.is_ok()) << capacity.status().message();
  return operator_inputs(v3.model, v3.device, *capacity, DType::kFp8, layout);
}

OperatorCostModel v3_cost(const V3& v3, const OperatorInputs& in) {
  return OperatorCostModel(in, operator_fit_for_device(v3.device),
                           with_cuda_graphs({}, CudaGraphs::kDecode));
}

std::map<std::string, OperatorCostModel::Terms> by_name(const OperatorCostModel& model,
                                                        const BatchShape& batch) {
  std::map<std::string, OperatorCostModel::Terms> out;
  for (const auto& t : model.terms(batch)) out[std::string(t.name)] = t;
  return out;
}

BatchShape decodes(int n, uint64_t context) {
  BatchShape b;
  for (int i = 0; i < n; ++i) b.add(1, context, /*prefill=*/false, /*sampled=*/true);
  return b;
}

BatchShape prefills(int n, uint64_t tokens) {
  BatchShape b;
  for (int i = 0; i < n; ++i) b.add(tokens, 0, /*prefill=*/true, /*sampled=*/true);
  return b;
}

// A TP-only layout is the TP group as before (its number is pinned through kvsim cost in
// tests/cli/cost_cli_test.cc, and by scripts/golden-outputs).
TEST(ParallelCostTest, ATpOnlyLayoutIsTimedAsBefore) {
  const V3 v3;
  const OperatorInputs in = v3_inputs(v3, {8, 1, 1, 1});
  const CapacityQuery query = [] {
    CapacityQuery q;
    q.tp = 8;
    q.weight_dtype = DType::kFp8;
    return q;
  }();
  const OperatorInputs plain = operator_inputs(
      v3.model, v3.device, *compute_capacity(v3.model, &v3.device, query), DType::kFp8, 8);
  EXPECT_EQ(v3_cost(v3, in).iteration_ns(decodes(64, 1024)),
            v3_cost(v3, plain).iteration_ns(decodes(64, 1024)));
  EXPECT_EQ(v3_cost(v3, in).iteration_ns(prefills(2, 1000)),
            v3_cost(v3, plain).iteration_ns(prefills(2, 1000)));
  EXPECT_EQ(by_name(v3_cost(v3, in), decodes(64, 1024)).count("moe_dispatch"), 0u);
}

// DP 8 x attention TP 1: every attention operator is whole on the rank, with no all-reduce;
// the dense FFN (3 layers) whole too (vLLM: each DP engine core with its own TP, 1 here).
TEST(ParallelCostTest, AttentionRunsPerDpRankAtAttentionTp) {
  const V3 v3;
  const OperatorInputs in = v3_inputs(v3, {8, 8, 8, 1});
  EXPECT_EQ(in.tp, 1u);
  EXPECT_DOUBLE_EQ(in.attention_in[1].n, 128.0 * 192);  // q_b_proj: every head
  EXPECT_DOUBLE_EQ(in.mlp_up.n, 2.0 * 18'432);
  EXPECT_DOUBLE_EQ(in.shared_up.n, 2.0 * 2048);
  EXPECT_DOUBLE_EQ(in.expert_up.n, 2.0 * 2048);  // whole experts: tp / ep = 1
  const auto ops = by_name(v3_cost(v3, in), decodes(128, 2000));
  EXPECT_EQ(ops.count("all_reduce"), 0u);
  EXPECT_EQ(ops.count("logits_all_gather"), 0u);
  EXPECT_EQ(ops.at("moe_dispatch").count, 58.0);
  EXPECT_EQ(ops.at("moe_combine").count, 58.0);
}

// EP 8 x DP 8 on one node, 128 decodes per rank: the low-latency kernels. Dispatch
// 128 x 8 x (7168 + 224) = 7,569,408 bytes at DeepEP's EP-8 98 GB/s; combine in bf16
// 128 x 8 x 7168 x 2 = 14,680,064 at 127 GB/s; each + the fit's one-shot latency + launch.
TEST(ParallelCostTest, DecodeUnderEpDispatchesAndCombinesLowLatency) {
  const V3 v3;
  const OperatorInputs in = v3_inputs(v3, {8, 8, 8, 1});
  const OperatorFit fit = operator_fit_for_device(v3.device);
  const auto ops = by_name(v3_cost(v3, in), decodes(128, 2000));
  const auto& dispatch = ops.at("moe_dispatch");
  EXPECT_EQ(dispatch.kernel, "low_latency");
  EXPECT_DOUBLE_EQ(dispatch.bytes, 7'569'408.0);
  EXPECT_NEAR(dispatch.time_s,
              fit.custom_one_shot.latency_s + 7'569'408.0 / 98e9 + fit.graph_launch_overhead_s,
              1e-12);
  const auto& combine = ops.at("moe_combine");
  EXPECT_DOUBLE_EQ(combine.bytes, 14'680'064.0);
  EXPECT_NEAR(combine.time_s,
              fit.custom_one_shot.latency_s + 14'680'064.0 / 127e9 + fit.graph_launch_overhead_s,
              1e-12);
}

// A batch with a prefill chunk takes the normal kernels: EP 8 in one node over NVLink
// (153/200 of H100's 450 GB/s one way), EP 32 over RDMA for 24 of its 31 peers.
TEST(ParallelCostTest, PrefillUnderEpUsesTheNormalKernels) {
  const V3 v3;
  const auto one_node = by_name(v3_cost(v3, v3_inputs(v3, {8, 8, 8, 1})), prefills(1, 128));
  EXPECT_EQ(one_node.at("moe_dispatch").kernel, "normal");
  EXPECT_DOUBLE_EQ(one_node.at("moe_dispatch").rdma_bytes, 0.0);
  EXPECT_NEAR(one_node.at("moe_dispatch").bandwidth_gbps, 344.25, 1e-9);
  const auto wide = by_name(v3_cost(v3, v3_inputs(v3, {32, 32, 32, 1})), prefills(1, 128));
  EXPECT_DOUBLE_EQ(wide.at("moe_dispatch").rdma_bytes, 11'010'048.0);
  EXPECT_DOUBLE_EQ(wide.at("moe_dispatch").bandwidth_gbps, 58.0);
}

// The expert GEMMs run the slowest rank's rows: 1024 tokens over EP 8 (128 a DP rank x 8),
// mean 1024 copies, s = sqrt(1024 x 8 x 1/8 x 7/8 x 248/255) = 29.5196,
// max = 1024 + 29.5196 x sqrt(8/7) x 1.42360 = 1068.926 rows over the rank's 32 experts,
// all touched (32 (1 - (1 - 8/256)^1024) = 32.000); an imbalance of 1.5 multiplies the rows.
TEST(ParallelCostTest, ExpertGemmsRunTheSlowestRanksRows) {
  const V3 v3;
  OperatorInputs in = v3_inputs(v3, {8, 8, 8, 1});
  const auto up = by_name(v3_cost(v3, in), decodes(128, 2000)).at("expert_up");
  EXPECT_NEAR(up.flops / (2 * 7168 * 4096.0), 1068.9256, 1e-3);
  EXPECT_NEAR(up.m, 33.40392, 1e-4);
  in.expert_imbalance = 1.5;
  const auto skewed = by_name(v3_cost(v3, in), decodes(128, 2000)).at("expert_up");
  EXPECT_NEAR(skewed.flops / (2 * 7168 * 4096.0), 1.5 * 1068.9256, 1.5e-3);
}

// DP 2 without EP (vLLM's flattened TP 8 experts): the routed experts see both DP ranks'
// tokens and reduce them over the whole group; attention all-reduces over attention TP 4.
TEST(ParallelCostTest, DpWithoutEpReducesTheExpertsOverTheWholeGroup) {
  const V3 v3;
  const OperatorInputs in = v3_inputs(v3, {8, 2, 1, 1});
  EXPECT_EQ(in.tp, 4u);
  EXPECT_DOUBLE_EQ(in.expert_up.n, 2.0 * 2048 / 8);
  const auto ops = by_name(v3_cost(v3, in), decodes(64, 1024));
  EXPECT_EQ(ops.at("all_reduce").count, 61.0 + 3);  // attention, and the 3 dense FFNs
  EXPECT_EQ(ops.at("moe_all_reduce").count, 58.0);
  EXPECT_DOUBLE_EQ(ops.at("moe_all_reduce").bytes, 2.0 * 128 * 7168);
  EXPECT_DOUBLE_EQ(ops.at("expert_up").flops, 2.0 * 128 * 8 * 7168 * 512);
}

// iteration_s caches the operators that depend only on a batch's new tokens, sampled tokens and
// kind: batches that share those but differ in their contexts (the mixers) must still give the
// uncached sum bit for bit, under EP (the all-to-all's mode follows the kind) and TP.
TEST(ParallelCostTest, TheCachedIterationTimeIsTheBreakdownsBitForBit) {
  const V3 v3;
  for (const ParallelLayout& layout : {ParallelLayout{8, 1, 1, 1}, ParallelLayout{64, 64, 64, 1}}) {
    const OperatorCostModel model = v3_cost(v3, v3_inputs(v3, layout));
    for (int i = 0; i < 600; ++i) {
      BatchShape batch = decodes(1 + i % 7, 100 + 37 * i);  // a key seen again, new contexts
      if (i % 3 == 0) batch.add(64 + 8 * (i % 5), 13 * i, /*prefill=*/true, i % 2 == 0);
      ASSERT_EQ(model.iteration_s(batch), model.explain(batch).total_s) << layout.ep << " " << i;
    }
  }
}

}  // namespace
}  // namespace kvsim::sim
