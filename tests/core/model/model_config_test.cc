// ModelSpec's YAML form: optional source and description, layer groups with their defaults
// and rules, MoE and MLA fields, weight quantization, and the round trip through
// model_to_config.
#include "core/model/model_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config/presets.h"
#include "core/config/yaml_io.h"
#include "core/model/load_spec.h"

namespace kvsim {
namespace {

using ::testing::HasSubstr;

const char* kUserModel =
    "attention: gqa\nnum_layers: 4\nhidden_size: 256\nnum_attention_heads: 8\n"
    "num_kv_heads: 2\nhead_dim: 32\nintermediate_size: 512\nvocab_size: 1000\n"
    "max_position_embeddings: 4096\nnum_params: 5000000\n";

StatusOr<ModelSpec> load(const std::string& yaml) {
  KVSIM_ASSIGN_OR_RETURN(ConfigNode node, parse_yaml(yaml, "m.yaml"));
  return model_from_config(node, "m");
}

std::string error_of(const std::string& yaml) {
  auto model = load(yaml);
  return model.is_ok() ? "" : model.status().message();
}

TEST(ModelConfigTest, AUsersModelNeedsNoSourceOrDescription) {
  auto model = load(kUserModel);
  ASSERT_TRUE(model.is_ok()) << model.status().message();
  EXPECT_EQ(model->source, "");
  EXPECT_TRUE(model->layer_groups.empty());
  EXPECT_FALSE(is_hybrid(*model));
  EXPECT_TRUE(model->gated_mlp);
  EXPECT_FALSE(model->tie_word_embeddings);
}

TEST(ModelConfigTest, UniformModelsAreOneDerivedGroup) {
  const std::vector<LayerGroup> llama = model_layer_groups(*load_model("llama3-8b"));
  ASSERT_EQ(llama.size(), 1u);
  EXPECT_EQ(llama[0].kind, LayerKind::kFull);
  EXPECT_EQ(llama[0].num_layers, 32u);
  EXPECT_EQ(llama[0].num_kv_heads, 8u);
  const std::vector<LayerGroup> mistral = model_layer_groups(*load_model("mistral-7b"));
  EXPECT_EQ(mistral[0].kind, LayerKind::kSlidingWindow);
  EXPECT_EQ(mistral[0].window_tokens, 4096u);
  EXPECT_EQ(uniform_window_tokens(*load_model("mistral-7b")), 4096u);
  const std::vector<LayerGroup> deepseek = model_layer_groups(*load_model("deepseek-r1"));
  EXPECT_EQ(deepseek[0].kind, LayerKind::kMla);
  EXPECT_EQ(deepseek[0].kv_lora_rank + deepseek[0].qk_rope_head_dim, 576u);
}

TEST(ModelConfigTest, LayerGroupsTakeTheModelsHeadsUnlessGiven) {
  auto model = load(std::string(kUserModel) +
                    "layer_groups:\n"
                    "  - {kind: sliding_window, num_layers: 2, window_tokens: 128}\n"
                    "  - {kind: full, num_layers: 1, num_kv_heads: 4, head_dim: 64}\n"
                    "  - {kind: recurrent, num_layers: 1, conv_state_tokens: 3, conv_dim: 64,"
                    " ssm_heads: 4, ssm_head_dim: 8, ssm_state_size: 16, state_dtype: fp16}\n");
  ASSERT_TRUE(model.is_ok()) << model.status().message();
  ASSERT_EQ(model->layer_groups.size(), 3u);
  EXPECT_EQ(model->layer_groups[0].num_kv_heads, 2u);
  EXPECT_EQ(model->layer_groups[0].head_dim, 32u);
  EXPECT_EQ(model->layer_groups[1].num_kv_heads, 4u);
  EXPECT_EQ(model->layer_groups[2].state_dtype, DType::kFp16);
  EXPECT_TRUE(is_hybrid(*model));
  EXPECT_EQ(describe_layer_groups(*model),
            "sliding_window W=128 x 2 layers, full x 1 layers, recurrent x 1 layers");
}

TEST(ModelConfigTest, LayerGroupRulesNameTheGroup) {
  const std::string base = kUserModel;
  EXPECT_THAT(error_of(base + "layer_groups:\n  - {kind: full, num_layers: 3}\n"),
              HasSubstr("the layer_groups hold 3 layers; num_layers is 4"));
  EXPECT_THAT(error_of(base + "layer_groups:\n  - {kind: sliding_window, num_layers: 4}\n"),
              HasSubstr("layer_groups[0] (sliding_window): window_tokens is required"));
  EXPECT_THAT(error_of(base + "layer_groups:\n  - {kind: full, num_layers: 4, conv_dim: 3}\n"),
              HasSubstr("conv_* and ssm_* apply to recurrent only"));
  EXPECT_THAT(error_of(base + "layer_groups:\n  - {kind: recurrent, num_layers: 4}\n"),
              HasSubstr("needs a state"));
  EXPECT_THAT(error_of(base + "layer_groups:\n  - {kind: ful, num_layers: 4}\n"),
              HasSubstr("did you mean 'full'"));
  EXPECT_THAT(error_of(base + "layer_groups:\n  - {kind: full, num_layers: 4, windo: 3}\n"),
              HasSubstr("m.yaml:12:"));
  EXPECT_THAT(error_of(base + "sliding_window_tokens: 64\nlayer_groups:\n"
                              "  - {kind: full, num_layers: 4}\n"),
              HasSubstr("not both"));
  EXPECT_THAT(error_of(base + "layer_groups: 3\n"), HasSubstr("must be a list"));
}

TEST(ModelConfigTest, ExpertFieldsAreChecked) {
  const std::string base = kUserModel;
  auto moe = load(base +
                  "num_experts: 8\nnum_experts_per_token: 2\nmoe_intermediate_size: 64\n"
                  "num_shared_experts: 1\nnum_dense_layers: 1\n");
  ASSERT_TRUE(moe.is_ok()) << moe.status().message();
  EXPECT_EQ(moe->num_experts, 8u);
  EXPECT_EQ(moe->num_dense_layers, 1u);
  EXPECT_THAT(error_of(base + "num_experts_per_token: 2\n"),
              HasSubstr("expert fields need num_experts > 0"));
  EXPECT_THAT(error_of(base + "num_experts: 8\nnum_experts_per_token: 9\n"
                              "moe_intermediate_size: 64\n"),
              HasSubstr("num_experts_per_token must be in [1, num_experts]"));
  EXPECT_THAT(error_of(base + "q_lora_rank: 64\n"), HasSubstr("apply to attention 'mla' only"));
}

TEST(ModelConfigTest, QuantizedWeightsCountTheirWidthAndGroupScales) {
  auto model = load(std::string(kUserModel) +
                    "weight_quantization: {method: awq, dtype: int4, group_size: 128,"
                    " group_bits: 20, num_params: 4000000}\n");
  ASSERT_TRUE(model.is_ok()) << model.status().message();
  // 1,000,000 params at 16 bits + 4,000,000 at 4 bits + 31,250 groups x 20 bits.
  EXPECT_EQ(weight_bits(*model, DType::kBf16), 16'000'000u + 16'000'000u + 625'000u);
  EXPECT_EQ(weight_bits(*load_model("llama3-8b"), DType::kFp16), 8'030'261'248ull * 16);
  EXPECT_THAT(error_of(std::string(kUserModel) +
                       "weight_quantization: {method: awq, dtype: int4, num_params: 9000000}\n"),
              HasSubstr("weight_quantization.num_params must be in [1, num_params]"));
}

TEST(ModelConfigTest, EveryPresetRoundTripsThroughItsYaml) {
  for (const std::string& name : preset_names(PresetKind::kModel)) {
    auto model = load_model(name);
    ASSERT_TRUE(model.is_ok()) << name << ": " << model.status().message();
    auto node = parse_yaml(to_yaml(model_to_config(*model)), name + ".yaml");
    ASSERT_TRUE(node.is_ok()) << node.status().message();
    auto back = model_from_config(*node, "other-name");
    ASSERT_TRUE(back.is_ok()) << name << ": " << back.status().message();
    EXPECT_EQ(*back, *model) << name;
  }
}

}  // namespace
}  // namespace kvsim
