// Hybrid models' tokens and sequences against hand computations under vLLM's hybrid KV cache
// manager semantics (core/model/kv_groups.h): one page size, groups of layers_per_group slots
// sharing one pool, sliding-window groups holding the window plus a chunk, recurrent groups
// one state per sequence.
#include "core/model/kv_groups.h"

#include <gtest/gtest.h>

#include "core/base/units.h"
#include "core/engine/capacity.h"
#include "core/model/load_spec.h"

namespace kvsim {
namespace {

constexpr uint64_t k40GiB = 40ull << 30;  // 42,949,672,960 B

CapacityResult capacity(const std::string& model_name, uint64_t budget, uint32_t tp = 1,
                        uint64_t seq_len = 0) {
  auto model = load_model(model_name);
  EXPECT_TRUE(model.is_ok()) << model.status().message();
  CapacityQuery query;
  query.kv.dtype = DType::kBf16;
  query.kv_budget_bytes = budget;
  query.tp = tp;
  query.seq_len = seq_len;
  auto result = compute_capacity(*model, nullptr, query);
  EXPECT_TRUE(result.is_ok()) << result.status().message();
  return result.is_ok() ? *result : CapacityResult{};
}

TEST(KvGroupsTest, Gemma3SlidingLayersShareOnePoolWithTheFullOnes) {
  const CapacityResult r = capacity("gemma-3-27b-it", k40GiB, 1, 4096);
  ASSERT_TRUE(r.hybrid.has_value());
  const KvCachePlan& plan = *r.hybrid;
  // 52 sliding + 10 full layers -> groups of 10 slots: 6 sliding (8 padding) + 1 full.
  EXPECT_EQ(plan.layers_per_group, 10u);
  EXPECT_EQ(plan.groups.size(), 7u);
  EXPECT_EQ(plan.num_padding_layers, 8u);
  EXPECT_EQ(plan.page_bytes, 2u * 16 * 16 * 128 * 2);  // 131,072 B
  EXPECT_EQ(r.kv_bytes_per_block, 1'310'720u);
  EXPECT_EQ(*r.num_blocks, 32'768u);     // 40 GiB / 1,310,720
  EXPECT_EQ(*r.max_tokens, 4681u * 16);  // floor(32,768 / 7 groups) x 16 = 74,896
  // A 4096-token sequence: 6 x (cdiv(min(1023 + 8192, 4096), 16) + 1) + cdiv(4096, 16).
  EXPECT_EQ(r.blocks_per_seq, 6u * 257 + 256);
  EXPECT_EQ(*r.max_batch_at_seq_len, 32'768u / 1798);  // 18
  // Sliding layers keep 1024 tokens, full ones all 4096; 8,192 B per layer and token.
  EXPECT_EQ(r.kv_bytes_for_request, 52ull * 1024 * 8192 + 10ull * 4096 * 8192);
  // 18 sequences get 1820 blocks each: 7 x cdiv(s, 16) + 6 <= 1820 up to s = 4144.
  CapacityQuery query;
  query.kv.dtype = DType::kBf16;
  query.kv_budget_bytes = k40GiB;
  query.batch = 18;
  const CapacityResult batch = *compute_capacity(*load_model("gemma-3-27b-it"), nullptr, query);
  EXPECT_EQ(*batch.max_seq_len_at_batch, 4144u);
}

TEST(KvGroupsTest, Gemma3AtTheFullContext) {
  const CapacityResult r = capacity("gemma-3-27b-it", k40GiB);
  EXPECT_EQ(r.seq_len, 131'072u);
  EXPECT_EQ(r.blocks_per_seq, 6u * (576 + 1) + 8192);  // cdiv(9215, 16) = 576
  EXPECT_EQ(*r.max_batch_at_seq_len, 2u);
}

TEST(KvGroupsTest, GptOss120bAlternatesTwoEqualGroups) {
  const CapacityResult r = capacity("gpt-oss-120b", k40GiB);
  const KvCachePlan& plan = *r.hybrid;
  EXPECT_EQ(plan.layers_per_group, 18u);
  EXPECT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.num_padding_layers, 0u);
  EXPECT_EQ(plan.page_bytes, 2u * 16 * 8 * 64 * 2);  // 32,768 B
  EXPECT_EQ(*r.num_blocks, k40GiB / (32'768 * 18));  // 72,817
  EXPECT_EQ(*r.max_tokens, 72'817u / 2 * 16);        // 582,528
  // 131,072 tokens: cdiv(min(127 + 8192, 131072), 16) + 1 = 521 sliding + 8192 full.
  EXPECT_EQ(r.blocks_per_seq, 521u + 8192);
  EXPECT_EQ(*r.max_batch_at_seq_len, 8u);
  // Whole-model bytes per token: both groups, 2 x 18 x 8 x 64 x 2 each.
  EXPECT_EQ(r.kv_bits_per_token / kBitsPerByte, 2u * 36864);
  // TP 2 halves the KV heads and so the page.
  const CapacityResult tp2 = capacity("gpt-oss-120b", k40GiB, 2);
  EXPECT_EQ(tp2.hybrid->page_bytes, 16'384u);
  EXPECT_EQ(*tp2.num_blocks, k40GiB / (16'384 * 18));  // 145,635
}

TEST(KvGroupsTest, NemotronHRaisesTheBlockUntilAPageHoldsAState) {
  const CapacityResult r = capacity("nemotron-h-8b", k40GiB);
  const KvCachePlan& plan = *r.hybrid;
  // State 2,158,592 B; attention 4,096 B per token -> block 16 x cdiv(2,158,592, 65,536) = 528.
  EXPECT_EQ(r.block_size, 528u);
  EXPECT_EQ(plan.page_bytes, 528u * 4096);  // the state is padded to 2,162,688 B
  EXPECT_EQ(plan.specs[0].kind, LayerKind::kRecurrent);
  EXPECT_EQ(plan.specs[0].real_page_bytes, 2'158'592u);
  EXPECT_EQ(plan.layers_per_group, 4u);  // 24 mamba, 4 attention, 24 MLP-only (no cache)
  EXPECT_EQ(plan.groups.size(), 7u);     // 6 recurrent + 1 full
  EXPECT_EQ(*r.num_blocks, k40GiB / (2'162'688 * 4));  // 4,964
  EXPECT_EQ(*r.max_tokens, 4964u / 7 * 528);           // 374,352
  // 8192 tokens: 6 groups x 1 state block + cdiv(8192, 528) = 16.
  EXPECT_EQ(r.blocks_per_seq, 22u);
  EXPECT_EQ(*r.max_batch_at_seq_len, 4964u / 22);
  EXPECT_EQ(r.kv_bytes_for_request, 24ull * 2'158'592 + 8192ull * 2 * 4 * 8 * 128 * 2);
}

TEST(KvGroupsTest, Qwen3NextGatedDeltaNetStates) {
  const CapacityResult r = capacity("qwen3-next-80b-a3b", k40GiB);
  const KvCachePlan& plan = *r.hybrid;
  // State 1,097,728 B, attention 2,048 B per token -> block 544, page 1,114,112 B.
  EXPECT_EQ(r.block_size, 544u);
  EXPECT_EQ(plan.page_bytes, 1'114'112u);
  EXPECT_EQ(plan.layers_per_group, 12u);
  EXPECT_EQ(plan.groups.size(), 4u);                       // 3 recurrent + 1 full
  EXPECT_EQ(*r.num_blocks, k40GiB / (1'114'112ull * 12));  // 3,212
  EXPECT_EQ(*r.max_tokens, 3212u / 4 * 544);
  EXPECT_EQ(r.blocks_per_seq, 3u + 482);  // 262,144 tokens: cdiv(262144, 544) = 482
  EXPECT_EQ(*r.max_batch_at_seq_len, 6u);
  // TP 2: one KV head and half of each state per device, the same block size.
  const CapacityResult tp2 = capacity("qwen3-next-80b-a3b", k40GiB, 2);
  EXPECT_EQ(tp2.block_size, 544u);
  EXPECT_EQ(tp2.hybrid->page_bytes, 544u * 1024);
  EXPECT_EQ(tp2.hybrid->specs[0].real_page_bytes, (3u * 4096 + 16 * 128 * 128) * 2);
}

TEST(KvGroupsTest, TheChunkBudgetSetsTheSlidingBlocks) {
  auto model = load_model("gemma-3-27b-it");
  CapacityQuery query;
  query.kv.dtype = DType::kBf16;
  query.kv_budget_bytes = k40GiB;
  query.seq_len = 131072;
  query.max_num_batched_tokens = 2048;
  const CapacityResult r = *compute_capacity(*model, nullptr, query);
  EXPECT_EQ(r.blocks_per_seq, 6u * (192 + 1) + 8192);  // cdiv(1023 + 2048, 16) = 192
}

TEST(KvGroupsTest, OneKindWithTwoShapesIsOneGroupOfSummedPages) {
  ModelSpec model;
  model.name = "two-shapes";
  model.num_layers = 3;
  model.num_attention_heads = 8;
  model.num_kv_heads = 4;
  model.head_dim = 64;
  model.attention = AttentionKind::kGqa;
  LayerGroup wide{.kind = LayerKind::kFull, .num_layers = 2, .num_kv_heads = 4, .head_dim = 64};
  LayerGroup narrow{.kind = LayerKind::kFull, .num_layers = 1, .num_kv_heads = 2, .head_dim = 64};
  model.layer_groups = {wide, narrow};
  CapacityQuery query;
  query.kv_budget_bytes = 1 << 20;
  query.seq_len = 100;
  const CapacityResult r = *compute_capacity(model, nullptr, query);
  ASSERT_TRUE(r.hybrid.has_value());
  EXPECT_TRUE(r.hybrid->uniform_type);
  EXPECT_EQ(r.kv_bytes_per_block, 2u * (2 * 16 * 4 * 64 * 2) + 2 * 16 * 2 * 64 * 2);
  EXPECT_EQ(r.blocks_per_seq, 7u);  // cdiv(100, 16)
  EXPECT_EQ(*r.max_tokens, *r.num_blocks * 16);
}

TEST(KvGroupsTest, UniformModelsKeepTheSingleGroupPath) {
  const CapacityResult r = capacity("llama3-8b", k40GiB);
  EXPECT_FALSE(r.hybrid.has_value());
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].bits_per_token, r.kv_bits_per_token);
  EXPECT_EQ(*r.num_blocks, k40GiB / (131'072 * 16));
}

}  // namespace
}  // namespace kvsim
