// Per-rank weights and KV of a parallel layout (core/engine/parallel_layout.h), against numbers
// worked by hand from the presets' config.json files (presets/hf/); the arithmetic is in the
// comments, none of it comes from the code under test.
#include "core/engine/parallel_layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/engine/capacity.h"
#include "core/model/load_spec.h"
#include "core/model/weight_memory.h"

namespace kvsim {
namespace {

using ::testing::HasSubstr;

// A model preset (presets/models/<name>.yaml, imported from its presets/hf/ config.json).
ModelSpec preset(const std::string& name) {
  auto model = load_model(name);
  EXPECT_TRUE(model.is_ok()) << model.status().message();
  return model.is_ok() ? *model : ModelSpec{};
}

// DeepSeek-V3 (hidden 7168, vocab 129280, 61 layers of which the first 3 dense, 256 routed
// experts of moe_intermediate 2048, MLA kv_lora_rank 512 + qk_rope_head_dim 64, fp8 checkpoint
// with 128x128 blocks: one 32-bit scale per 16384 quantized weights).
//   params            embedding 129280 x 7168 = 926,679,040 (lm_head untied: the same again)
//                     MLA attention per layer: q_a 7168x1536 + q_a_norm 1536 + q_b 1536x24576
//                       + kv_a 7168x576 + kv_a_norm 512 + kv_b 512x32768 + o 16384x7168
//                       = 187,107,328; two norms 14,336
//                     dense layer: + 3 x 7168 x 18432 = 396,361,728 -> 583,483,392
//                     MoE layer: + router 7168x256 = 1,835,008 + bias 256
//                       + routed 256 x 3 x 7168 x 2048 = 11,274,289,152
//                       + shared 3 x 7168 x 2048 = 44,040,192 -> 11,507,286,272
//                     3 x 583,483,392 + 58 x 11,507,286,272 + 2 x 926,679,040 + 7168 (norm)
//                       = 671,026,419,200
//   quantized (fp8)   every linear matrix but embedding and lm_head: 669,065,609,216
//   routed experts    58 x 11,274,289,152 = 653,908,770,816 params
//                     bits = 653,908,770,816 x (8 + 32 / 16384) = 5,232,547,332,096
//   router            58 x 1,835,008 = 106,430,464 params x 16 bits = 1,702,887,424
//   all weights       (671,026,419,200 - 669,065,609,216) x 16 + 669,065,609,216 x 8
//                       + ceil(669,065,609,216 / 16384) x 32 = 5,385,204,602,240 bits
//   rest of layers    all - routed - router - 2 x 926,679,040 x 16 = 121,300,653,440 bits
// EP 8 x DP 8 (tp 8, dp 8, ep 8: attention TP 1):
//   routed / 8        5,232,547,332,096 / 8 / 8 = 81,758,552,064 B
//   router, replicated 1,702,887,424 / 8        =    212,860,928 B
//   rest + embedding + lm_head, whole on each rank (attention TP 1)
//                     (121,300,653,440 + 2 x 926,679,040 x 16) / 8 = 18,869,297,840 B
//   per rank          100,840,710,832 B (93.9 GiB)
TEST(ParallelLayoutTest, DeepSeekV3AtEp8Dp8HoldsAnEighthOfTheExpertsAndAllElse) {
  const ModelSpec model = preset("deepseek-v3");
  ASSERT_EQ(model.num_params, 671'026'419'200u);
  const ParallelLayout layout{.tp = 8, .dp = 8, .ep = 8, .pp = 1};
  ASSERT_TRUE(validate_parallel_layout(model, layout).is_ok());
  EXPECT_EQ(layout.attention_tp(), 1u);
  const RankWeights w = rank_weights(model, DType::kBf16, layout);
  EXPECT_EQ(w.routed_bytes, 81'758'552'064u);
  EXPECT_EQ(w.replicated_bytes, 212'860'928u);
  EXPECT_EQ(w.attention_tp_bytes, 18'869'297'840u);
  EXPECT_EQ(w.bytes, 100'840'710'832u);
  EXPECT_EQ(w.moe_layers, 58u);
}

// KV of DeepSeek-V3 per rank: the MLA latent is not split by attention TP, so at attention TP 1
// and at TP 8 alike a rank caches 61 layers x (512 + 64) x 2 B (bf16) = 70,272 B per token.
TEST(ParallelLayoutTest, MlaLatentIsWholeOnEveryAttentionTpRank) {
  const ModelSpec model = preset("deepseek-v3");
  for (const ParallelLayout layout :
       {ParallelLayout{.tp = 8, .dp = 8, .ep = 8}, ParallelLayout{.tp = 8, .dp = 1, .ep = 8}}) {
    const KvShape shape = rank_kv_shape(model, layout);
    EXPECT_EQ(kv_bits_per_token(shape, KvStorage{DType::kBf16, 0}) / 8, 70'272u);
  }
}

// Qwen3-235B-A22B (hidden 4096, vocab 151936 untied, 94 layers all MoE, 64 query and 4 KV heads
// of head_dim 128, 128 routed experts of moe_intermediate 1536), bf16.
//   params            per layer: q 4096x8192 + k,v 2 x 4096x512 + o 8192x4096 = 71,303,168
//                       + q_norm, k_norm 256 + two norms 8192 + router 4096x128 = 524,288
//                       + routed 128 x 3 x 4096 x 1536 = 2,415,919,104 -> 2,487,755,008
//                     94 x 2,487,755,008 + 2 x 151936 x 4096 + 4096 = 235,093,634,560
//   routed            94 x 2,415,919,104 = 227,096,395,776; router 94 x 524,288 = 49,283,072
// TP 4 EP 4: experts over 4 ranks, attention TP 4 (one KV head per rank):
//   routed / 4 x 2 B  113,548,197,888 B
//   router x 2 B          98,566,144 B (replicated)
//   rest / 4 x 2 B     (235,093,634,560 - 227,096,395,776 - 49,283,072) / 4 x 2
//                      = 3,973,977,856 B
//   per rank           117,620,741,888 B
//   KV per token       94 layers x 2 (K, V) x 1 head x 128 x 2 B = 48,128 B
TEST(ParallelLayoutTest, Qwen3MoeAtTp4Ep4) {
  const ModelSpec model = preset("qwen3-235b-a22b");
  ASSERT_EQ(model.num_params, 235'093'634'560u);
  const ParallelLayout layout{.tp = 4, .dp = 1, .ep = 4, .pp = 1};
  ASSERT_TRUE(validate_parallel_layout(model, layout).is_ok());
  const RankWeights w = rank_weights(model, DType::kBf16, layout);
  EXPECT_EQ(w.routed_bytes, 113'548'197'888u);
  EXPECT_EQ(w.replicated_bytes, 98'566'144u);
  EXPECT_EQ(w.attention_tp_bytes, 3'973'977'856u);
  EXPECT_EQ(w.bytes, 117'620'741'888u);
  // EP inside the TP group moves experts, not bytes: the same as TP 4 alone.
  EXPECT_EQ(w.bytes, loaded_weight_bytes(model, DType::kBf16, 4));
  const KvShape shape = rank_kv_shape(model, layout);
  EXPECT_EQ(kv_bits_per_token(shape, KvStorage{DType::kBf16, 0}) / 8, 48'128u);
}

// Data-parallel attention replicates the non-expert weights: Qwen3 at tp 4, dp 4 holds the
// whole 7,947,955,712 non-routed, non-router params (x 2 B = 15,895,911,424 B) on every rank,
// and each rank caches all 4 KV heads: 94 x 2 x 4 x 128 x 2 = 192,512 B per token.
TEST(ParallelLayoutTest, DpAttentionReplicatesTheRest) {
  const ModelSpec model = preset("qwen3-235b-a22b");
  const ParallelLayout layout{.tp = 4, .dp = 4, .ep = 4, .pp = 1};
  const RankWeights w = rank_weights(model, DType::kBf16, layout);
  EXPECT_EQ(w.attention_tp_bytes, 15'895'911'424u);
  EXPECT_EQ(w.bytes, 113'548'197'888u + 98'566'144u + 15'895'911'424u);
  EXPECT_EQ(kv_bits_per_token(rank_kv_shape(model, layout), KvStorage{DType::kBf16, 0}) / 8,
            192'512u);
}

// Pipeline stages: Qwen3 at PP 2 (47 layers a stage). Stage 0 holds the embedding, stage 1 the
// lm_head, the same size: each rank holds half of every layer part and one 151936 x 4096
// matrix: (227,096,395,776 + 49,283,072 + 7,947,955,712 - 2 x 622,329,856) / 2 + 622,329,856
// = 117,546,817,280 params x 2 B = 235,093,634,560 B; KV 47 layers: 47 x 2 x 4 x 128 x 2 B.
TEST(ParallelLayoutTest, PipelineStagesSplitTheLayers) {
  const ModelSpec model = preset("qwen3-235b-a22b");
  const ParallelLayout layout{.tp = 1, .dp = 1, .ep = 1, .pp = 2};
  ASSERT_TRUE(validate_parallel_layout(model, layout).is_ok());
  const RankWeights w = rank_weights(model, DType::kBf16, layout);
  EXPECT_EQ(w.stage_layers, 47u);
  EXPECT_EQ(w.bytes, 235'093'634'560u);
  EXPECT_EQ(kv_bits_per_token(rank_kv_shape(model, layout), KvStorage{DType::kBf16, 0}) / 8,
            96'256u);
}

// Today's TP group is the old formula to the byte.
TEST(ParallelLayoutTest, TpOnlyIsLoadedWeightBytes) {
  const ModelSpec model = preset("qwen3-235b-a22b");
  for (uint32_t tp : {1u, 2u, 8u, 16u}) {
    EXPECT_EQ(rank_weights(model, DType::kFp8, ParallelLayout{.tp = tp}).bytes,
              loaded_weight_bytes(model, DType::kFp8, tp));
  }
}

struct BadLayout {
  const char* file;
  ParallelLayout layout;
  const char* message;
};

TEST(ParallelLayoutTest, BadCombinationsNameTheField) {
  const BadLayout cases[] = {
      {"qwen3-8b", {.tp = 2, .ep = 2}, "parallel.ep (--ep) 2 needs a mixture-of-experts"},
      {"qwen3-235b-a22b", {.tp = 8, .dp = 3}, "parallel.dp (--dp) 3 must divide the 8"},
      {"qwen3-235b-a22b", {.tp = 6, .ep = 3}, "parallel.ep (--ep) 3 must divide the 128"},
      {"qwen3-235b-a22b", {.tp = 8, .ep = 16}, "parallel.ep (--ep) 16 must divide the 8"},
      {"qwen3-235b-a22b", {.pp = 3}, "parallel.pp (--pp) 3 must divide the 94 layers"},
      {"qwen3-235b-a22b", {.tp = 0}, "parallel.tp (--tp) 0 must be >= 1"},
      {"qwen3-235b-a22b", {.dp = 0}, "parallel.dp (--dp) 0 must be >= 1"},
      {"qwen3-235b-a22b", {.ep = 0}, "parallel.ep (--ep) 0 must be >= 1"},
      {"qwen3-235b-a22b", {.pp = 0}, "parallel.pp (--pp) 0 must be >= 1"},
  };
  for (const BadLayout& c : cases) {
    const Status status = validate_parallel_layout(preset(c.file), c.layout);
    EXPECT_FALSE(status.is_ok()) << c.message;
    EXPECT_THAT(status.message(), HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace kvsim
