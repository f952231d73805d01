// The operator cost model on a tiny model with round numbers: each operator's time equals its
// formula written out by hand, the batch sums give the per-chunk times, the breakdown adds up
// to iteration_ns, and the LM head, launches, TP collectives and MoE behave as documented.
#include "simulator/cost/operator_cost_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/model/load_spec.h"
#include "simulator/cost/vidur_profile.h"
#include "tests/simulator/cost/tiny_shapes.h"
#include "tests/test_data.h"

namespace kvsim::sim {
namespace {

using cost_test::tiny_device;
using cost_test::tiny_model;

const ModelSpec kTinyModel = tiny_model(1'000'000);

OperatorFit round_fit() {
  OperatorFit f;
  f.name = "round";
  f.gemm = {5e-6, 0.5, 100, 0.8};
  f.norm = {4e-6, 0.5};
  f.rope = {3e-6, 0.5};
  f.activation = {4e-6, 0.5};
  f.residual_add = {2e-6, 1.0};
  f.embedding = {5e-6, 0.25};
  f.decode_attention = {10e-6, 0.7};
  f.prefill_attention = {10e-6, 0.4, 50, 0.2, 100};
  f.all_reduce = {{{20e-6, 100}, {30e-6, 100}, {40e-6, 100}}};
  f.launch_overhead_s = 1e-6;
  f.graph_launch_overhead_s = 0.5e-6;
  f.iteration_overhead_s = 1e-4;
  return f;
}

OperatorCostModel make_model(uint32_t tp, DType weights = DType::kFp16) {
  CapacityQuery query;
  query.block_size = 16;
  query.tp = tp;
  query.weight_dtype = weights;
  const auto capacity = compute_capacity(kTinyModel, nullptr, query);
  EXPECT_TRUE(capacity.is_ok()) << capacity.status().message();
  return OperatorCostModel(operator_inputs(kTinyModel, tiny_device(), *capacity, weights, tp),
                           round_fit(), with_cuda_graphs({}, CudaGraphs::kDecode));
}

std::map<std::string, OperatorCostModel::Terms> by_name(const OperatorCostModel& model,
                                                        const BatchShape& batch) {
  std::map<std::string, OperatorCostModel::Terms> out;
  for (const auto& t : model.terms(batch)) out[std::string(t.name)] = t;
  return out;
}

BatchShape prefill(uint64_t q, uint64_t c = 0) {
  BatchShape b;
  b.add(q, c, /*prefill=*/true, /*sampled=*/true);
  return b;
}

TEST(OperatorCostModel, GemmTimeIsItsFormula) {
  const auto ops = by_name(make_model(1), prefill(100));
  const auto& qkv = ops.at("qkv_proj");
  // M = 100, K = 256, N = (4 + 2 x 4) x 64 = 768.
  EXPECT_DOUBLE_EQ(qkv.flops, 2.0 * 100 * 256 * 768);               // 39,321,600
  EXPECT_DOUBLE_EQ(qkv.bytes, 2.0 * 256 * 768 + 2.0 * 100 * 1024);  // 598,016
  // ec(100) = 0.5 x 100 / (100 + 100) = 0.25; P = 1e14, BW = 1e12.
  EXPECT_DOUBLE_EQ(qkv.compute_s, 39'321'600.0 / (1e14 * 0.25));
  EXPECT_DOUBLE_EQ(qkv.memory_s, 598'016.0 / (1e12 * 0.8));
  EXPECT_DOUBLE_EQ(
      qkv.time_s,
      5e-6 + std::sqrt(std::pow(39'321'600.0 / 2.5e13, 2) + std::pow(598'016.0 / 8e11, 2)) + 1e-6);
  EXPECT_EQ(qkv.count, 2);  // one per layer
}

TEST(OperatorCostModel, ElementwiseAndCollectiveTimesAreTheirFormulas) {
  const auto one = by_name(make_model(1), prefill(100));
  // input_norm reads and writes 100 x 256 fp16 values: 102,400 bytes.
  EXPECT_DOUBLE_EQ(one.at("input_norm").time_s,
                   std::sqrt(4e-6 * 4e-6 + std::pow(102'400.0 / (1e12 * 0.5), 2)) + 1e-6);
  // mlp_act (gated): reads gate and up, writes the product: 3 x 2 B x 100 x 512.
  EXPECT_DOUBLE_EQ(one.at("mlp_act").bytes, 3.0 * 2 * 100 * 512);
  EXPECT_EQ(one.count("all_reduce"), 0u);
  const auto two = by_name(make_model(2), prefill(100));
  // Two all-reduces per layer of 100 x 256 x 2 B = 51,200 B: 20 us + 2 (1/2) x 51,200 / 100 GB/s.
  const auto& ar = two.at("all_reduce");
  EXPECT_EQ(ar.count, 4);
  EXPECT_DOUBLE_EQ(ar.time_s, 20e-6 + 51'200.0 / 100e9 + 1e-6);
  // The logits all-gather: 1 sampled token x 1000 x 2 B, (n-1)/n of it on the bus.
  EXPECT_DOUBLE_EQ(two.at("logits_all_gather").time_s, 20e-6 + 0.5 * 2000.0 / 100e9 + 1e-6);
  // TP halves the heads: qkv N = (2 + 4) x 64.
  EXPECT_DOUBLE_EQ(two.at("qkv_proj").flops, 2.0 * 100 * 256 * 384);
}

TEST(OperatorCostModel, PrefillAttentionSumsPerChunkTimes) {
  const OperatorCostModel model = make_model(1);
  // One chunk of q new tokens after c cached: F_cross = k q c, F_causal = k q (q+1) / 2 with
  // k = 4 heads x 64 x 4 = 1024 FLOPs per pair; e(q) = e_max q / (q + half).
  const auto chunk_s = [](double q, double c) {
    const double k = 1024;
    return k * q * c / (1e14 * 0.4 * q / (q + 50)) +
           k * q * (q + 1) / 2 / (1e14 * 0.2 * q / (q + 100));
  };
  const auto one = by_name(model, prefill(300, 700)).at("attention_prefill");
  EXPECT_DOUBLE_EQ(one.flops, 1024.0 * (300 * 700 + 300 * 301 / 2));
  EXPECT_NEAR(one.compute_s, chunk_s(300, 700), 1e-18);
  EXPECT_DOUBLE_EQ(one.time_s, 10e-6 + one.compute_s + 1e-6);
  BatchShape both = prefill(300, 700);
  both.add(64, 0, true, true);
  const auto sum = by_name(model, both).at("attention_prefill");
  EXPECT_NEAR(sum.compute_s, chunk_s(300, 700) + chunk_s(64, 0), 1e-18);
  EXPECT_DOUBLE_EQ(sum.floor_s, 10e-6);  // one kernel for the batch
}

TEST(OperatorCostModel, DecodeAttentionReadsEachSequencesKv) {
  BatchShape batch;
  batch.add(1, 1000, false, true);
  batch.add(1, 3000, false, true);
  const auto ops = by_name(make_model(1), batch);
  const auto& attention = ops.at("attention_decode");
  // 4002 keys (each decode reads its context and its new token) x 2 (K, V) x 4 x 64 x 2 B.
  EXPECT_DOUBLE_EQ(attention.bytes, 4002.0 * 1024);
  EXPECT_DOUBLE_EQ(attention.time_s, 10e-6 + 4002.0 * 1024 / (1e12 * 0.7) + 0.5e-6);
  EXPECT_EQ(ops.count("attention_prefill"), 0u);
  // A decode-only iteration runs as a CUDA graph: every kernel has the graph's launch cost.
  EXPECT_DOUBLE_EQ(ops.at("qkv_proj").launch_s, 0.5e-6);
  EXPECT_DOUBLE_EQ(by_name(make_model(1), prefill(8)).at("qkv_proj").launch_s, 1e-6);
}

TEST(OperatorCostModel, TheLmHeadRunsOnlyForSampledTokens) {
  BatchShape middle;
  middle.add(512, 0, /*prefill=*/true, /*sampled=*/false);
  EXPECT_EQ(by_name(make_model(1), middle).count("lm_head"), 0u);
  BatchShape last = middle;
  last.add(1, 99, false, true);
  last.add(100, 412, true, true);
  const auto head = by_name(make_model(1), last).at("lm_head");
  EXPECT_DOUBLE_EQ(head.flops, 2.0 * 2 * 256 * 1000);  // 2 sampled rows x 256 -> 1000
}

TEST(OperatorCostModel, TheBreakdownSumsToTheIterationTime) {
  const OperatorCostModel model = make_model(2);
  BatchShape batch = prefill(1000, 24);
  for (int i = 0; i < 30; ++i) batch.add(1, 500 + 10 * i, false, true);
  const CostBreakdown cost = model.explain(batch);
  double sum = 0;
  for (const OperatorTime& op : cost.operators) sum += op.time_s;
  EXPECT_DOUBLE_EQ(sum, cost.total_s);
  EXPECT_EQ(cost.total_s, model.iteration_s(batch));
  EXPECT_EQ(seconds_to_ns(cost.total_s), model.iteration_ns(batch));
  EXPECT_EQ(cost.operators.back().name, "iteration_overhead");
  EXPECT_DOUBLE_EQ(cost.operators.back().time_s, 1e-4);
  for (const OperatorTime& op : cost.operators) EXPECT_FALSE(op.formula.empty()) << op.name;
}

// More work never costs less: with the built-in a100 fit on Llama-2-7B at TP 2, an iteration's
// time grows (strictly) with the decode batch, each decode's context and a prefill's tokens,
// over a grid that crosses the fits' regime changes (GEMMs weight- to compute-bound near 40
// tokens, attention from its floor to bandwidth-bound, all-reduces past ~1 MB).
TEST(OperatorCostModel, TimeGrowsWithBatchContextAndPromptTokens) {
  const ModelSpec model = *load_model("llama-7b");
  const DeviceSpec device = *load_device("a100-80g");
  CapacityQuery query;
  query.tp = 2;
  const OperatorCostModel cost(
      operator_inputs(model, device, *compute_capacity(model, &device, query), DType::kFp16, 2),
      operator_fit_for_device(device), with_cuda_graphs({}, CudaGraphs::kDecode));
  const auto decodes = [](uint64_t n, uint64_t context) {
    BatchShape b;
    for (uint64_t i = 0; i < n; ++i) b.add(1, context, /*prefill=*/false, /*sampled=*/true);
    return b;
  };
  double previous = 0;
  for (uint64_t n = 1; n <= 512; n *= 2) {
    const double t = cost.iteration_s(decodes(n, 2048));
    EXPECT_GT(t, previous) << n << " decodes";
    previous = t;
  }
  previous = 0;
  for (uint64_t context = 16; context <= 32768; context *= 2) {
    const double t = cost.iteration_s(decodes(32, context));
    EXPECT_GT(t, previous) << "context " << context;
    previous = t;
  }
  previous = 0;
  for (uint64_t q = 1; q <= 16384; q = q * 3 / 2 + 1) {
    const double t = cost.iteration_s(prefill(q, 512));
    EXPECT_GT(t, previous) << q << " prompt tokens";
    previous = t;
  }
}

TEST(OperatorCostModel, Int4WeightsHalveTheWeightBytes) {
  const auto fp16 = by_name(make_model(1), prefill(1)).at("mlp_down");
  const auto int4 = by_name(make_model(1, DType::kInt4), prefill(1)).at("mlp_down");
  // down: K = 512, N = 256; activations stay fp16: 2 B x 1 x (512 + 256).
  EXPECT_DOUBLE_EQ(fp16.bytes, 2.0 * 512 * 256 + 2.0 * 768);
  EXPECT_DOUBLE_EQ(int4.bytes, 0.5 * 512 * 256 + 2.0 * 768);
}

TEST(OperatorCostModel, MoeReadsTheExpertsTheBatchTouches) {
  CapacityQuery query;
  query.block_size = 16;
  OperatorInputs in = operator_inputs(
      kTinyModel, tiny_device(), *compute_capacity(kTinyModel, nullptr, query), DType::kFp16, 1);
  in.num_moe_layers = 2;  // every layer: 8 experts, top 2, expert FFN 128
  in.num_experts = 8;
  in.experts_per_token = 2;
  in.router = {"router", 256, 8};
  in.expert_up = {"expert_up", 256, 256};
  in.expert_down = {"expert_down", 128, 256};
  in.expert_act_width = 3 * 128;
  const OperatorCostModel model(in, round_fit(), with_cuda_graphs({}, CudaGraphs::kNone));
  const auto one = by_name(model, prefill(1));
  EXPECT_EQ(one.count("mlp_up"), 0u);
  // One token touches 8 (1 - (1 - 2/8)^1) = 2 experts: 2 weight matrices, 2 rows.
  EXPECT_DOUBLE_EQ(one.at("expert_up").bytes, 2.0 * 256 * 256 * 2 + 2.0 * 2 * 512);
  // 100 tokens touch 8 (1 - 0.75^100) experts, 200 rows, 200 / D rows per expert.
  const double distinct = 8 * (1 - std::pow(0.75, 100));
  const auto many = by_name(model, prefill(100)).at("expert_down");
  EXPECT_DOUBLE_EQ(many.flops, 2.0 * 200 * 128 * 256);
  EXPECT_DOUBLE_EQ(many.m, 200 / distinct);
  EXPECT_DOUBLE_EQ(many.bytes, 2.0 * 128 * 256 * distinct + 2.0 * 200 * 384);
}

// The expert fields of a preset reach the operator model (simulator/cost/model_arch.h):
// Mixtral-8x7B (8 experts of 14,336, top 2, no shared expert, SwiGLU) at TP 2.
TEST(OperatorCostModel, AnMoePresetIsCostedByItsExperts) {
  const ModelSpec model = *load_model("mixtral-8x7b");
  const DeviceSpec device = *load_device("h100-sxm");
  CapacityQuery query;
  query.tp = 2;
  const OperatorInputs in =
      operator_inputs(model, device, *compute_capacity(model, &device, query), DType::kBf16, 2);
  EXPECT_EQ(in.num_moe_layers, 32u);
  EXPECT_EQ(in.num_experts, 8u);
  EXPECT_EQ(in.experts_per_token, 2u);
  EXPECT_DOUBLE_EQ(in.expert_up.n, 2.0 * 14'336 / 2);
  EXPECT_DOUBLE_EQ(in.expert_down.k, 14'336.0 / 2);
  EXPECT_DOUBLE_EQ(in.shared_up.n, 0.0);
  const OperatorCostModel cost(in, operator_fit_for_device(device),
                               with_cuda_graphs({}, CudaGraphs::kDecode));
  BatchShape decodes;
  for (int i = 0; i < 64; ++i) decodes.add(1, 1024, /*prefill=*/false, /*sampled=*/true);
  const auto ops = by_name(cost, decodes);
  EXPECT_EQ(ops.count("mlp_up"), 0u);
  // 64 tokens x top 2 of 8: every expert is read, 8 (1 - 0.75^64) of them.
  EXPECT_NEAR(ops.at("expert_up").bytes,  // one instance (layer)
              2.0 * 4096 * 14'336 * 8 * (1 - std::pow(0.75, 64)) + 2.0 * 128 * (4096 + 14'336),
              1.0);
}

TEST(OperatorFits, ParametersByNameAndDevice) {
  OperatorFit fit = round_fit();
  ASSERT_TRUE(set_fit_parameter(&fit, "gemm.memory_efficiency", 0.75).is_ok());
  EXPECT_EQ(fit.gemm.memory_efficiency, 0.75);
  ASSERT_TRUE(set_fit_parameter(&fit, "all_reduce_4.latency_s", 7e-6).is_ok());
  EXPECT_EQ(collective_for(fit, 3).latency_s, 7e-6);
  EXPECT_EQ(collective_for(fit, 16).latency_s, 40e-6);
  const Status unknown = set_fit_parameter(&fit, "gemm.memory_eficiency", 0.5);
  EXPECT_NE(unknown.message().find("did you mean 'gemm.memory_efficiency'"), std::string::npos)
      << unknown.message();
  EXPECT_FALSE(set_fit_parameter(&fit, "gemm.memory_efficiency", 1.5).is_ok());
  DeviceSpec device = tiny_device();
  for (const auto& [name, fit_name] :
       std::map<std::string, std::string>{{"a100-80g", "a100"},
                                          {"h100-sxm", "h100"},
                                          {"h200", "h200"},
                                          {"ascend-910b2", "ascend"}}) {
    device.name = name;
    EXPECT_EQ(operator_fit_for_device(device).name, fit_name);
  }
}

// The built-in a100 and h100 fits against a profile held out of their fits (Llama-2-7B
// geometry = llama-7b, TP 1; docs/cost_model/fit_operators.py: HOLD_OUT): each operator's kernel
// time (launch gap excluded: the profiles time kernels only) within `max_error` of every
// measured row of the sample and within 10% at the median. The worst residuals are on the
// small elementwise kernels, whose floors vary by model (docs/cost_model.md): on the H100 this
// model's 1-token residual add is measured at 1.0 us where the other five models' give the
// fit's 2.0 us floor, hence a factor of 2 there.
void expect_fit_reproduces_held_out_rows(const std::string& profile_device,
                                         const std::string& device_name, double max_error) {
  const std::string mlp =
      "calibration/vidur/compute/" + profile_device + "/meta-llama/Llama-2-7b-hf/mlp.csv";
  KVSIM_REQUIRE_DATA(mlp);
  const ModelSpec model = *load_model("llama-7b");
  const DeviceSpec device = *load_device(device_name);
  CapacityQuery query;
  const OperatorCostModel cost(
      operator_inputs(model, device, *compute_capacity(model, &device, query), DType::kFp16, 1),
      operator_fit_for_device(device), with_cuda_graphs({}, CudaGraphs::kNone));
  const std::map<std::string, std::string> ops = {
      {"qkv_proj", "attn_pre_proj"}, {"o_proj", "attn_post_proj"},
      {"mlp_up", "mlp_up_proj"},     {"mlp_down", "mlp_down_proj"},
      {"mlp_act", "mlp_act"},        {"input_norm", "input_layernorm"},
      {"rope", "attn_rope"},         {"residual_add", "add"}};
  std::vector<std::string> columns = {"num_tokens"};
  for (const auto& [ours, theirs] : ops) columns.push_back("time_stats." + theirs + ".median");
  const auto rows = read_profile_rows((testing::data_dir() / mlp).string(),
                                      {{"num_tensor_parallel_workers", "1"}}, columns);
  ASSERT_TRUE(rows.is_ok()) << rows.status().message();
  std::vector<double> errors;
  std::vector<double> seen;  // the token grid holds 2048 twice
  for (const auto& row : *rows) {
    if ((row[0] != 1 && row[0] != 16 && row[0] != 128 && row[0] != 512 && row[0] != 2048 &&
         row[0] != 4096) ||
        std::find(seen.begin(), seen.end(), row[0]) != seen.end()) {
      continue;
    }
    seen.push_back(row[0]);
    const auto terms = by_name(cost, prefill(static_cast<uint64_t>(row[0])));
    size_t i = 1;
    for (const auto& [ours, theirs] : ops) {
      const auto& t = terms.at(ours);
      const double error = (t.time_s - t.launch_s) / (row[i++] * 1e-3) - 1;
      EXPECT_LT(std::abs(error), max_error) << ours << " at " << row[0] << " tokens";
      errors.push_back(std::abs(error));
    }
  }
  ASSERT_EQ(errors.size(), 6 * ops.size());
  std::nth_element(errors.begin(), errors.begin() + errors.size() / 2, errors.end());
  EXPECT_LT(errors[errors.size() / 2], 0.10);
}

TEST(OperatorFits, TheA100FitReproducesHeldOutProfileRows) {
  expect_fit_reproduces_held_out_rows("a100", "a100-80g", 0.50);
}

TEST(OperatorFits, TheH100FitReproducesHeldOutProfileRows) {
  expect_fit_reproduces_held_out_rows("h100", "h100-sxm", 1.0);
}

}  // namespace
}  // namespace kvsim::sim
