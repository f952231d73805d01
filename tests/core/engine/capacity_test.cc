#include "core/engine/capacity.h"

#include <gtest/gtest.h>

#include "core/base/units.h"
#include "core/model/load_spec.h"
#include "core/model/weight_memory.h"

namespace kvsim {
namespace {

ModelSpec hand_model(uint32_t layers, uint32_t kv_heads, uint32_t head_dim) {
  ModelSpec model;
  model.name = "hand";
  model.num_layers = layers;
  model.num_attention_heads = kv_heads;
  model.num_kv_heads = kv_heads;
  model.head_dim = head_dim;
  model.attention = AttentionKind::kMha;
  return model;
}

CapacityResult capacity(const ModelSpec& model, const DeviceSpec* device, CapacityQuery query) {
  auto result = compute_capacity(model, device, query);
  EXPECT_TRUE(result.is_ok()) << result.status().message();
  return result.is_ok() ? *result : CapacityResult{};
}

CapacityQuery request(DType dtype, uint64_t batch, uint64_t seq_len) {
  CapacityQuery query;
  query.kv.dtype = dtype;
  query.batch = batch;
  query.seq_len = seq_len;
  return query;
}

TEST(CapacityTest, HandModelOf32LayersFitsTheTextbookFigure) {
  const CapacityResult r =
      capacity(hand_model(32, 16, 128), nullptr, request(DType::kFp16, 1, 1024));
  EXPECT_EQ(r.kv_bytes_for_request, 268'435'456u);
  EXPECT_EQ(r.kv_bits_per_token / 8, 262'144u);
  EXPECT_FALSE(r.num_blocks.has_value());  // no device, no budget
}

TEST(CapacityTest, Gpt3At16x1024AcrossDtypes) {
  const ModelSpec gpt3 = *load_model("gpt3-175b");
  EXPECT_EQ(capacity(gpt3, nullptr, request(DType::kFp16, 16, 1024)).kv_bytes_for_request,
            77'309'411'328u);
  EXPECT_EQ(capacity(gpt3, nullptr, request(DType::kFp16, 16, 1024)).kv_bytes_for_request,
            72 * kGiB);
  EXPECT_EQ(capacity(gpt3, nullptr, request(DType::kFp32, 16, 1024)).kv_bytes_for_request,
            144 * kGiB);
  EXPECT_EQ(capacity(gpt3, nullptr, request(DType::kInt8, 16, 1024)).kv_bytes_for_request,
            36 * kGiB);
  EXPECT_EQ(capacity(gpt3, nullptr, request(DType::kInt4, 16, 1024)).kv_bytes_for_request,
            18 * kGiB);
  EXPECT_EQ(capacity(gpt3, nullptr, request(DType::kFp16, 16, 32768)).kv_bytes_for_request,
            2304 * kGiB);  // 2.25 TiB
}

TEST(CapacityTest, Opt13bAndDeepSeekBytesPerToken) {
  EXPECT_EQ(capacity(*load_model("opt-13b"), nullptr, {}).kv_bits_per_token / 8, 819'200u);
  const CapacityResult deepseek = capacity(*load_model("deepseek-r1"), nullptr, {});
  EXPECT_EQ(deepseek.kv_bits_per_token / 8, 70'272u);
  EXPECT_EQ(deepseek.shape_model.num_tensors, 1u);
}

TEST(CapacityTest, QuantGroupsAddAnFp16ScaleAndZeroPerGroup) {
  CapacityQuery query = request(DType::kInt4, 1, 1);
  query.kv.quant_group = 32;
  const CapacityResult r = capacity(*load_model("llama3-8b"), nullptr, query);
  // Per head vector: 128 x 4 bits + ceil(128/32) x 32 bits = 640 bits.
  EXPECT_EQ(r.kv_bits_per_token, 2u * 32 * 8 * 640);
}

TEST(CapacityTest, Int4BytesPerTokenCanBeFractional) {
  const CapacityResult r = capacity(hand_model(1, 1, 3), nullptr, request(DType::kInt4, 1, 1));
  EXPECT_EQ(r.kv_bits_per_token, 24u);  // 2 x 3 x 4 bits = 3 bytes
  const CapacityResult odd = capacity(hand_model(1, 1, 1), nullptr, request(DType::kInt4, 1, 1));
  EXPECT_EQ(odd.kv_bits_per_token, 8u);
  EXPECT_EQ(odd.kv_bytes_per_block_nd, 2u * 8);  // block 16: each of K, V: 16 x 4 bits = 8 B
}

// The engine's budget behind these blocks is tested in engine_memory_test.cc.
TEST(CapacityTest, BlocksOfAGivenBudgetOnAnNdDevice) {
  const ModelSpec model = *load_model("llama3-8b");
  const DeviceSpec device = *load_device("a100-80g");
  CapacityQuery query;
  query.kv_budget_bytes = 10 * kGiB;
  const CapacityResult r = capacity(model, &device, query);
  EXPECT_EQ(r.block_size, 16u);
  EXPECT_EQ(r.kv_bytes_per_block, 131'072u * 16);
  EXPECT_EQ(*r.num_blocks, 10 * kGiB / (131'072u * 16));
  EXPECT_EQ(*r.max_tokens, *r.num_blocks * 16);        // vLLM's "GPU KV cache size": all blocks
  EXPECT_EQ(*r.num_usable_blocks, *r.num_blocks - 1);  // block 0 is the null block
  EXPECT_EQ(*r.max_batch_at_seq_len, (*r.num_blocks - 1) / (8192 / 16));
}

TEST(CapacityTest, NzDevicePadsBlocks) {
  ModelSpec model = *load_model("llama-7b");
  const DeviceSpec device = *load_device("ascend-310p3");
  CapacityQuery query;
  query.block_size = 100;  // not a multiple of 16: rows pad to 112
  query.kv_budget_bytes = kGiB;
  const CapacityResult r = capacity(model, &device, query);
  EXPECT_TRUE(r.nz);
  EXPECT_EQ(r.nz_width, 16u);
  EXPECT_EQ(r.kv_bytes_per_block_nd, 2ull * 32 * 100 * 32 * 128 * 2);
  EXPECT_EQ(r.kv_bytes_per_block, 2ull * 32 * 112 * 32 * 128 * 2);
  EXPECT_EQ(*r.num_blocks, kGiB / r.kv_bytes_per_block);
}

TEST(CapacityTest, NzPadsColumnsToTheFractalWidth) {
  const DeviceSpec device = *load_device("ascend-310p3");
  CapacityQuery query;
  query.kv.dtype = DType::kInt8;
  query.block_size = 128;
  query.kv_budget_bytes = kGiB;
  // 3 heads x 20 dims = 60 columns -> 2 fractals of 32 int8 columns = 64.
  const CapacityResult r = capacity(hand_model(2, 3, 20), &device, query);
  EXPECT_EQ(r.nz_width, 32u);
  EXPECT_EQ(r.kv_bytes_per_block, 2ull * 2 * 64 * 128);
  EXPECT_EQ(r.kv_bytes_per_block_nd, 2ull * 2 * 60 * 128);
}

TEST(CapacityTest, TensorParallelSplitsKvHeadsAndWeights) {
  const ModelSpec model = *load_model("llama3-70b");
  CapacityQuery query;
  query.tp = 4;
  const CapacityResult r = capacity(model, nullptr, query);
  EXPECT_EQ(r.shape_per_device.heads, 2u);
  EXPECT_EQ(r.kv_bits_per_token_per_device * 4, r.kv_bits_per_token);
  EXPECT_EQ(*r.weight_bytes, 70'553'706'496ull * 2 / 4);
  query.tp = 16;  // more devices than KV heads: each keeps one (replicated)
  EXPECT_EQ(capacity(model, nullptr, query).shape_per_device.heads, 1u);
  query.tp = 3;
  EXPECT_FALSE(compute_capacity(model, nullptr, query).is_ok());
}

// vLLM replicates the MoE router (16-bit) on every rank, and gives each rank one whole KV head
// when there are more ranks than KV heads; the rest splits evenly.
TEST(CapacityTest, TensorParallelReplicatesTheRouterAndSurplusKvHeads) {
  ModelSpec model = *load_model("llama3-8b");  // 32 layers, hidden 4096, 8 KV heads of 128
  model.num_params = 1'000'000'000'000ull;     // round, to read the arithmetic below
  model.num_experts = 64;
  model.num_dense_layers = 2;
  const uint64_t router = 30ull * 4096 * 64;        // 30 MoE layers x hidden x experts
  const uint64_t kv_head = 32ull * 2 * 4096 * 128;  // K and V of one head, all layers
  const uint64_t embedding = embedding_params(model);
  EXPECT_EQ(router_params(model), router);
  EXPECT_EQ(replicated_kv_params(model, 8), 0u);  // 8 heads over 8 ranks: an even split
  EXPECT_EQ(replicated_kv_params(model, 16), kv_head);
  // bf16 at TP8: the router is held whole, the rest split.
  EXPECT_EQ(loaded_weight_bytes(model, DType::kBf16, 8),
            (model.num_params - router) * 2 / 8 + router * 2);
  // fp8 at TP16: embeddings and router stay 16-bit; each rank holds one KV head (fp8) where
  // an even split would give it 8/16 of one.
  const uint64_t linear = model.num_params - embedding - router;
  const uint64_t sharded_bytes = linear - 8 * kv_head + embedding * 2;
  EXPECT_EQ(loaded_weight_bytes(model, DType::kFp8, 16), sharded_bytes / 16 + router * 2 + kv_head);
}

TEST(CapacityTest, SlidingWindowCapsTokensKept) {
  const ModelSpec model = *load_model("mistral-7b");
  const DeviceSpec device = *load_device("h100-sxm");
  CapacityQuery query = request(DType::kFp16, 4, 32768);
  query.kv_budget_bytes = 20 * kGiB;  // 4 windows of 4,096 tokens take 2 GiB
  const CapacityResult r = capacity(model, &device, query);
  EXPECT_EQ(r.tokens_kept_per_seq, 4096u);
  EXPECT_EQ(r.kv_bytes_for_request, 4ull * 4096 * 131'072);
  EXPECT_EQ(*r.max_seq_len_at_batch, 32768u);  // the window fits: only positions limit
  EXPECT_TRUE(r.max_seq_len_capped);
}

TEST(CapacityTest, RejectsUnsupportedDtypeAndOverflow) {
  const ModelSpec model = *load_model("llama3-8b");
  const DeviceSpec device = *load_device("ascend-310p3");
  auto bf16 = compute_capacity(model, &device, request(DType::kBf16, 1, 1));
  ASSERT_FALSE(bf16.is_ok());
  EXPECT_NE(bf16.status().message().find("fp16, int8"), std::string::npos);
  auto huge = compute_capacity(model, nullptr, request(DType::kFp16, 1ull << 40, 1ull << 40));
  ASSERT_FALSE(huge.is_ok());
  EXPECT_NE(huge.status().message().find("64 bits"), std::string::npos);
}

}  // namespace
}  // namespace kvsim
