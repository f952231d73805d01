// The cost models on hybrid models (sliding-window and recurrent layers beside full ones):
// BatchShape's window sums against hand counts and a brute-force count, sliding layers that
// read only their window, recurrent layers that read their state whatever the context, and
// breakdowns that still add up to iteration_ns.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

#include "core/model/load_spec.h"
#include "simulator/cost/batch_spec.h"
#include "simulator/cost/calibrate.h"
#include "simulator/cost/layer_kind_costs.h"
#include "simulator/cost/make_cost_model.h"
#include "simulator/cost/operator_cost_model.h"
#include "simulator/cost/roofline_cost_model.h"

namespace kvsim::sim {
namespace {

BatchShape windowed(uint32_t window_tokens) {
  BatchShape b;
  b.window_tokens = window_tokens;
  return b;
}

TEST(BatchShapeWindow, DecodesReadAtMostTheWindow) {
  BatchShape b = windowed(8);
  b.add(1, 3, false, true);    // c < W - 1: all 3 cached keys + itself
  b.add(1, 7, false, true);    // c = W - 1: 7 + itself = W
  b.add(1, 100, false, true);  // c > W - 1: still W - 1 cached keys
  EXPECT_EQ(b.window_decode_context_tokens, 3u + 7u + 7u);
  EXPECT_EQ(b.window_attention_pairs, 4u + 8u + 8u);
  EXPECT_EQ(b.decode_context_tokens, 110u);  // the full layers' sums are untouched
  EXPECT_EQ(b.attention_pairs, 4u + 8u + 101u);
}

TEST(BatchShapeWindow, PrefillChunksInsideAcrossAndBeyondTheWindow) {
  {  // q = 4 after c = 2, W = 8: every key is in the window (c + q <= W).
    BatchShape b = windowed(8);
    b.add(4, 2, true, true);
    EXPECT_EQ(b.window_prefill_cross_pairs, 8u);    // 4 x 2
    EXPECT_EQ(b.window_prefill_causal_pairs, 10u);  // 1 + 2 + 3 + 4
    EXPECT_EQ(b.window_attention_pairs, b.attention_pairs);
    EXPECT_EQ(b.window_prefill_context_tokens, 2u);
    EXPECT_DOUBLE_EQ(b.window_prefill_cross_per_query, 2.0);
    EXPECT_DOUBLE_EQ(b.window_prefill_causal_per_query, 2.5);
  }
  {  // q = 4 after c = 20 >= W - 1: query i sees 7 - i cached keys.
    BatchShape b = windowed(8);
    b.add(4, 20, true, true);
    EXPECT_EQ(b.window_prefill_cross_pairs, 7u + 6u + 5u + 4u);
    EXPECT_EQ(b.window_prefill_causal_pairs, 10u);
    EXPECT_EQ(b.window_attention_pairs, 4u * 8u);
    EXPECT_EQ(b.window_prefill_context_tokens, 7u);
  }
  {  // q = 6 after c = 5: the chunk crosses the window's edge at its fourth query.
    BatchShape b = windowed(8);
    b.add(6, 5, true, true);
    EXPECT_EQ(b.window_prefill_cross_pairs, 5u + 5u + 5u + 4u + 3u + 2u);
    EXPECT_EQ(b.window_prefill_causal_pairs, 1u + 2u + 3u + 4u + 5u + 6u);
    EXPECT_EQ(b.window_attention_pairs, 6u + 7u + 8u + 8u + 8u + 8u);
    EXPECT_DOUBLE_EQ(b.window_prefill_cross_per_query, 24.0 / 6);
  }
  {  // q = 12 after nothing: a chunk longer than the window; rows 8..11 form a dense band.
    BatchShape b = windowed(8);
    b.add(12, 0, true, false);
    EXPECT_EQ(b.window_prefill_causal_pairs, 36u);  // rows 0..7: 1 + ... + 8
    EXPECT_EQ(b.window_prefill_cross_pairs, 4u * 8u);
    EXPECT_EQ(b.window_attention_pairs, 68u);
  }
  {  // q = 12 after c = 3: the triangle of rows 0..7 (36), the rest dense.
    BatchShape b = windowed(8);
    b.add(12, 3, true, false);
    EXPECT_EQ(b.window_prefill_causal_pairs, 36u);
    EXPECT_EQ(b.window_attention_pairs, 4u + 5u + 6u + 7u + 8u * 8u);
    EXPECT_EQ(b.window_prefill_cross_pairs, 86u - 36u);
  }
}

// The closed forms against counting every (query, key) pair, over random chunks and windows.
TEST(BatchShapeWindow, ClosedFormsMatchACountOfEveryPair) {
  std::mt19937 rng(15);
  for (int trial = 0; trial < 2000; ++trial) {
    const uint64_t w = 1 + rng() % 40;
    const uint64_t q = 1 + rng() % 60;
    const uint64_t c = rng() % 80;
    BatchShape b = windowed(static_cast<uint32_t>(w));
    b.add(q, c, true, true);
    uint64_t cross = 0, causal = 0;
    for (uint64_t i = 0; i < q; ++i) {
      const uint64_t position = c + i;
      for (uint64_t key = 0; key <= position; ++key) {
        if (key + w <= position) continue;          // outside (p - W, p]
        (key >= c && i < w ? causal : cross) += 1;  // the leading triangle, or dense
      }
    }
    ASSERT_EQ(b.window_prefill_cross_pairs, cross) << "W " << w << " q " << q << " c " << c;
    ASSERT_EQ(b.window_prefill_causal_pairs, causal) << "W " << w << " q " << q << " c " << c;
    ASSERT_EQ(b.window_attention_pairs, cross + causal);
    ASSERT_EQ(b.window_prefill_context_tokens, std::min(c, w - 1));
  }
}

TEST(BatchShapeWindow, WithoutAWindowNothingChanges) {
  BatchShape plain;
  plain.add(5, 100, true, true);
  plain.add(1, 4000, false, true);
  EXPECT_EQ(plain.window_attention_pairs, 0u);
  EXPECT_EQ(plain.window_prefill_cross_pairs, 0u);
  EXPECT_EQ(plain.window_decode_context_tokens, 0u);
  EXPECT_EQ(plain.window_prefill_cross_per_query, 0.0);
  BatchShape with = windowed(16);
  with.add(5, 100, true, true);
  with.add(1, 4000, false, true);
  EXPECT_EQ(with.attention_pairs, plain.attention_pairs);
  EXPECT_EQ(with.prefill_cross_pairs, plain.prefill_cross_pairs);
  EXPECT_EQ(with.decode_context_tokens, plain.decode_context_tokens);
}

// A preset on an H100 (bf16 weights and KV) with the operator model and its built-in fit.
struct Costed {
  ModelSpec model;
  CapacityResult capacity;
  std::unique_ptr<CostModel> cost;
  uint32_t window = 0;
};

Costed costed(ModelSpec model, CostModelKind kind = CostModelKind::kOperators) {
  const DeviceSpec device = *load_device("h100-sxm");
  CapacityQuery query;
  query.kv.dtype = DType::kBf16;
  query.weight_dtype = DType::kBf16;
  Costed out;
  out.capacity = *compute_capacity(model, &device, query);
  CostModelConfig config;
  config.kind = kind;
  out.cost = make_cost_model(config, model, device, out.capacity, DType::kBf16, 1).value();
  out.window = *cost_window_tokens(model);
  out.model = std::move(model);
  return out;
}

// The same model with every attention layer full (its uniform fields, no groups).
ModelSpec all_full(ModelSpec model) {
  model.layer_groups.clear();
  return model;
}

std::map<std::string, OperatorTime> operators(const Costed& c, const std::string& spec) {
  std::map<std::string, OperatorTime> out;
  for (const OperatorTime& op : c.cost->explain(*parse_batch_spec(spec, c.window)).operators) {
    out[op.name] = op;
  }
  return out;
}

double kv_bytes_per_token_layer(const ModelSpec& m) {
  return 2.0 * m.num_kv_heads * m.head_dim * dtype_bits(DType::kBf16) / 8;  // K and V
}

TEST(HybridOperatorCost, GemmaSlidingLayersReadOnlyTheirWindow) {
  const Costed gemma = costed(*load_model("gemma-3-27b-it"));
  const Costed full = costed(all_full(*load_model("gemma-3-27b-it")));
  ASSERT_EQ(gemma.window, 1024u);
  const std::string batch = "decode:32x32768";
  auto ops = operators(gemma, batch);
  const auto full_ops = operators(full, batch);
  ASSERT_EQ(ops.count("attention_decode_sliding"), 1u);
  EXPECT_EQ(ops["attention_decode"].count, 10u);
  EXPECT_EQ(ops["attention_decode_sliding"].count, 52u);
  EXPECT_EQ(full_ops.at("attention_decode").count, 62u);
  const double per_token = kv_bytes_per_token_layer(gemma.model);
  EXPECT_DOUBLE_EQ(ops["attention_decode"].bytes, 10 * 32 * 32769.0 * per_token);
  EXPECT_DOUBLE_EQ(ops["attention_decode_sliding"].bytes, 52 * 32 * 1024.0 * per_token);
  EXPECT_DOUBLE_EQ(full_ops.at("attention_decode").bytes, 62 * 32 * 32769.0 * per_token);
  const double hybrid_attention =
      ops["attention_decode"].time_s + ops["attention_decode_sliding"].time_s;
  // 10 full layers at 32k plus 52 at 1k read a fifth of what 62 full layers read.
  EXPECT_LT(hybrid_attention, 0.25 * full_ops.at("attention_decode").time_s);
}

TEST(HybridOperatorCost, GptOssDecodeAtLongContextCostsLessThanAllFull) {
  const Costed oss = costed(*load_model("gpt-oss-20b"));
  const Costed full = costed(all_full(*load_model("gpt-oss-20b")));
  ASSERT_EQ(oss.window, 128u);
  const std::string batch = "decode:16x65536";
  auto ops = operators(oss, batch);
  const double attention = ops["attention_decode"].time_s + ops["attention_decode_sliding"].time_s;
  EXPECT_LT(attention, 0.55 * operators(full, batch).at("attention_decode").time_s);
  EXPECT_LT(oss.cost->iteration_ns(*parse_batch_spec(batch, oss.window)),
            full.cost->iteration_ns(*parse_batch_spec(batch, 0)));
}

TEST(HybridOperatorCost, TheBreakdownSumsToTheIterationTime) {
  for (const std::string name :
       {"gemma-3-27b-it", "gpt-oss-20b", "nemotron-h-8b", "jamba-1.5-mini", "qwen3-next-80b-a3b"}) {
    const Costed c = costed(*load_model(name));
    for (const std::string spec :
         {"decode:64x8192", "prefill:2x4096+3000,decode:8x100", "chunk:1x512+200"}) {
      const BatchShape shape = *parse_batch_spec(spec, c.window);
      const CostBreakdown explained = c.cost->explain(shape);
      double sum = 0;
      for (const OperatorTime& op : explained.operators) sum += op.time_s;
      EXPECT_DOUBLE_EQ(sum, explained.total_s) << name << " " << spec;
      EXPECT_EQ(seconds_to_ns(explained.total_s), c.cost->iteration_ns(shape))
          << name << " " << spec;
    }
  }
}

// Nemotron-H-8B: 24 mamba2 layers, 24 MLP-only layers, 4 attention layers.
TEST(HybridOperatorCost, RecurrentStateCostsTheSameAtAnyContext) {
  const Costed nemotron = costed(*load_model("nemotron-h-8b"));
  const auto short_ops = operators(nemotron, "decode:32x1024");
  const auto long_ops = operators(nemotron, "decode:32x32768");
  const OperatorTime& state = short_ops.at("recurrent_state");
  EXPECT_EQ(state.count, 24u);
  EXPECT_EQ(state.time_s, long_ops.at("recurrent_state").time_s);
  const LayerGroup& mamba = nemotron.model.layer_groups.front();
  ASSERT_EQ(mamba.kind, LayerKind::kRecurrent);
  const double elements = uint64_t{mamba.conv_state_tokens} * mamba.conv_dim +
                          uint64_t{mamba.ssm_heads} * mamba.ssm_head_dim * mamba.ssm_state_size;
  const double state_bytes = elements * dtype_bits(mamba.state_dtype) / 8;
  EXPECT_DOUBLE_EQ(state.bytes, 24 * 2 * 32 * state_bytes);  // read + write, per sequence
  EXPECT_EQ(short_ops.at("attention_decode").count, 4u);
  EXPECT_EQ(short_ops.at("mlp_up").count, 24u);  // the FFN of the MLP-only layers
  EXPECT_EQ(short_ops.at("qkv_proj").count, 4u);
  EXPECT_EQ(short_ops.at("recurrent_in_proj").count, 24u);
  // 32 tokens x 4096 -> conv_dim 10240 + the gate's 128 heads x 64 = 18432 columns.
  EXPECT_DOUBLE_EQ(short_ops.at("recurrent_in_proj").flops, 24 * 2.0 * 32 * 4096 * 18432);
  EXPECT_DOUBLE_EQ(short_ops.at("recurrent_out_proj").flops, 24 * 2.0 * 32 * 8192 * 4096);
  EXPECT_EQ(short_ops.count("attention_decode_sliding"), 0u);
  EXPECT_GT(long_ops.at("attention_decode").time_s, short_ops.at("attention_decode").time_s);
}

TEST(HybridOperatorCost, AUniformModelHasNoHybridOperators) {
  const Costed llama = costed(*load_model("llama3-8b"));
  EXPECT_EQ(llama.window, 0u);
  const auto ops = operators(llama, "prefill:2x1024+512,decode:8x2048");
  for (const char* name : {"kv_cache_write_sliding", "attention_prefill_sliding",
                           "attention_decode_sliding", "recurrent_state"}) {
    EXPECT_EQ(ops.count(name), 0u) << name;
  }
  EXPECT_EQ(ops.at("kv_cache_write").count, llama.model.num_layers);
  EXPECT_EQ(ops.at("attention_prefill").count, llama.model.num_layers);
}

TEST(HybridRooflineCost, SlidingLayersReadTheirWindowRecurrentTheirState) {
  const Costed gemma = costed(*load_model("gemma-3-27b-it"), CostModelKind::kRoofline);
  const Costed full = costed(all_full(*load_model("gemma-3-27b-it")), CostModelKind::kRoofline);
  const auto& roofline = dynamic_cast<const RooflineCostModel&>(*gemma.cost);
  const RooflineInputs& in = roofline.inputs();
  const double per_token = kv_bytes_per_token_layer(gemma.model);
  EXPECT_DOUBLE_EQ(in.kv_bytes_per_token_per_device, 10 * per_token);
  EXPECT_DOUBLE_EQ(in.sliding_kv_bytes_per_token_per_device, 52 * per_token);
  const BatchShape decode = *parse_batch_spec("decode:32x32768", gemma.window);
  const double bytes =
      in.weight_bytes_per_device + 32 * 32769.0 * 10 * per_token + 32 * 1024.0 * 52 * per_token;
  EXPECT_NEAR(roofline.breakdown(decode).memory_s * in.memory_bytes_per_s,
              bytes / CostModelConfig{}.bandwidth_efficiency * 1.0, bytes * 1e-12);
  EXPECT_LT(gemma.cost->iteration_ns(decode),
            full.cost->iteration_ns(*parse_batch_spec("decode:32x32768", 0)));
  const Costed nemotron = costed(*load_model("nemotron-h-8b"), CostModelKind::kRoofline);
  const auto& nin = dynamic_cast<const RooflineCostModel&>(*nemotron.cost).inputs();
  EXPECT_GT(nin.state_bytes_per_seq_per_device, 0);
  EXPECT_EQ(nin.sliding_kv_bytes_per_token_per_device, 0);
}

TEST(HybridCost, TwoWindowsAndProfilesAreRefused) {
  ModelSpec two = *load_model("gemma-3-27b-it");
  LayerGroup other = two.layer_groups.front();
  other.window_tokens = 512;
  other.num_layers = 2;
  two.layer_groups.front().num_layers -= 2;
  two.layer_groups.push_back(other);
  const auto window = cost_window_tokens(two);
  ASSERT_FALSE(window.is_ok());
  EXPECT_NE(window.status().message().find("1024, 512"), std::string::npos)
      << window.status().message();
  CostModelConfig profile;
  profile.kind = CostModelKind::kProfile;
  profile.profiles = "/nonexistent";
  const ModelSpec gemma = *load_model("gemma-3-27b-it");
  const DeviceSpec device = *load_device("h100-sxm");
  CapacityQuery query;
  query.kv.dtype = DType::kBf16;
  const auto capacity = *compute_capacity(gemma, &device, query);
  const auto model = make_cost_model(profile, gemma, device, capacity, DType::kBf16, 1);
  ASSERT_FALSE(model.is_ok());
  EXPECT_NE(model.status().message().find("hybrid"), std::string::npos) << model.status().message();
}

// kvsim calibrate's measurements carry the model's window into every iteration they run.
TEST(HybridCost, MeasurementsCarryTheWindow) {
  const auto iterations = measurement_iterations("request:2x3000+3", 1024);
  ASSERT_TRUE(iterations.is_ok()) << iterations.status().message();
  ASSERT_EQ(iterations->size(), 3u);  // the prefill, then 2 decodes
  for (const BatchShape& shape : *iterations) EXPECT_EQ(shape.window_tokens, 1024u);
  EXPECT_EQ(iterations->back().window_decode_context_tokens, 2u * 1023u);
  EXPECT_EQ((*measurement_iterations("decode:4x10", 1024)).front().window_decode_context_tokens,
            40u);
}

}  // namespace
}  // namespace kvsim::sim
