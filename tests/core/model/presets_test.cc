#include "core/config/presets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "core/base/units.h"
#include "core/config/yaml_io.h"
#include "core/model/device_config.h"
#include "core/model/load_spec.h"

namespace kvsim {
namespace {

using ::testing::HasSubstr;

TEST(PresetsTest, ShipsTheNamedModelsAndDevices) {
  const std::vector<std::string> models = preset_names(PresetKind::kModel);
  // The 12 original names (scenarios and tests use them) and the catalogue of issue 15.
  for (const char* name : {"deepseek-r1",
                           "gpt3-175b",
                           "llama-13b",
                           "llama-7b",
                           "llama2-70b",
                           "llama3-70b",
                           "llama3-8b",
                           "mistral-7b",
                           "opt-13b",
                           "qwen2.5-32b",
                           "qwen2.5-72b",
                           "qwen2.5-7b",
                           "llama-2-7b",
                           "llama-2-13b",
                           "llama-3.1-8b",
                           "llama-3.1-70b",
                           "llama-3.1-405b",
                           "llama-3.3-70b-instruct",
                           "qwen2.5-14b",
                           "qwen3-8b",
                           "qwen3-14b",
                           "qwen3-32b",
                           "qwen3-30b-a3b",
                           "qwen3-235b-a22b",
                           "qwen3-coder-480b-a35b",
                           "deepseek-v3",
                           "mixtral-8x7b",
                           "gpt-oss-20b",
                           "gpt-oss-120b",
                           "gemma-3-27b-it",
                           "mistral-small-24b",
                           "phi-4"}) {
    EXPECT_NE(std::find(models.begin(), models.end(), name), models.end()) << name;
  }
  EXPECT_EQ(models.size(), 49u);
  EXPECT_EQ(preset_names(PresetKind::kDevice), (std::vector<std::string>{"a100-40g",
                                                                         "a100-80g",
                                                                         "a10g",
                                                                         "ascend-310p3",
                                                                         "ascend-310p3-24g",
                                                                         "ascend-310p3-48g",
                                                                         "ascend-910a",
                                                                         "ascend-910b1",
                                                                         "ascend-910b2",
                                                                         "ascend-910b3",
                                                                         "ascend-910b4",
                                                                         "ascend-910b4-1",
                                                                         "b200",
                                                                         "h100-pcie",
                                                                         "h100-sxm",
                                                                         "h20",
                                                                         "h200",
                                                                         "l4",
                                                                         "l40s",
                                                                         "mi300x",
                                                                         "rtx-3090",
                                                                         "rtx-4090",
                                                                         "rtx-a6000"}));
}

TEST(PresetsTest, DeviceMemoryIsWhatTheDriverReports) {
  // nvidia-smi / rocm-smi / npu-smi totals (MiB), which engines multiply by their utilisation.
  EXPECT_EQ(load_device("l4")->memory_bytes, 23'034ull << 20);
  EXPECT_EQ(load_device("l40s")->memory_bytes, 46'068ull << 20);
  EXPECT_EQ(load_device("h100-pcie")->memory_bytes, 81'559ull << 20);
  EXPECT_EQ(load_device("b200")->memory_bytes, 183'359ull << 20);
  EXPECT_EQ(load_device("mi300x")->memory_bytes, 205'822'885'888ull);
  EXPECT_EQ(load_device("ascend-310p3-24g")->memory_bytes, 21'527ull << 20);
  EXPECT_EQ(load_device("ascend-310p3-48g")->memory_bytes, 43'054ull << 20);
  EXPECT_EQ(load_device("ascend-310p3-48g")->kv_layout, KvLayout::kNz);
  EXPECT_EQ(load_device("mi300x")->vendor, "amd");
}

TEST(PresetsTest, EveryPresetLoadsAndValidates) {
  for (const std::string& name : preset_names(PresetKind::kModel)) {
    auto model = load_model(name);
    ASSERT_TRUE(model.is_ok()) << model.status().message();
    EXPECT_EQ(model->name, name);
    EXPECT_FALSE(model->source.empty());
  }
  for (const std::string& name : preset_names(PresetKind::kDevice)) {
    auto device = load_device(name);
    ASSERT_TRUE(device.is_ok()) << device.status().message();
    EXPECT_FALSE(device->source.empty());
  }
}

TEST(PresetsTest, DeviceFactsFromTheIssue) {
  const DeviceSpec p310 = *load_device("ascend-310p3");
  EXPECT_EQ(p310.kv_layout, KvLayout::kNz);
  EXPECT_DOUBLE_EQ(p310.kv_memory_factor, 0.5);
  EXPECT_EQ(p310.default_block_size, 128u);
  EXPECT_FALSE(supports_kv_dtype(p310, DType::kBf16));
  EXPECT_EQ(nz_fractal_width(&p310, DType::kFp16), 16u);
  EXPECT_EQ(nz_fractal_width(&p310, DType::kInt8), 32u);
  const DeviceSpec a100 = *load_device("a100-80g");
  EXPECT_EQ(a100.memory_bytes, 80 * kGiB);
  EXPECT_EQ(a100.default_block_size, 16u);
  EXPECT_DOUBLE_EQ(a100.kv_memory_factor, 1.0);
  // nvidia-smi's 143,771 MiB, not the datasheet's "141GB" (10^9 B would be 131.3 GiB).
  EXPECT_EQ(load_device("h200")->memory_bytes, 143'771 * kMiB);
  EXPECT_LT(load_device("h200")->runtime_memory_bytes, load_device("h200")->memory_bytes);
  EXPECT_EQ(load_model("mistral-7b")->sliding_window_tokens, 4096u);
  // Generated from its config.json: the exact count (the report's "37B activated").
  EXPECT_EQ(load_model("deepseek-r1")->num_active_params, 37'552'297'472ull);
}

// The peer link the engine-memory rules read: NVLink where the device-to-device link beats
// the host link on an NVIDIA part, multicast (NVLink SHARP) only on HGX Hopper and later.
TEST(PresetsTest, PeerLinksOfTheDevices) {
  EXPECT_TRUE(has_nvlink(*load_device("h100-sxm")));
  EXPECT_TRUE(has_nvlink(*load_device("a100-80g")));
  EXPECT_FALSE(has_nvlink(*load_device("l40s")));
  EXPECT_FALSE(has_nvlink(*load_device("mi300x")));  // Infinity Fabric, not NVIDIA's NCCL
  EXPECT_TRUE(load_device("h100-sxm")->nvlink_multicast);
  EXPECT_TRUE(load_device("b200")->nvlink_multicast);
  EXPECT_FALSE(load_device("a100-80g")->nvlink_multicast);
  EXPECT_FALSE(load_device("h100-pcie")->nvlink_multicast);
}

TEST(PresetsTest, UnknownNameListsValidOnesAndTheNearest) {
  auto model = load_model("llama3-8");
  ASSERT_FALSE(model.is_ok());
  EXPECT_THAT(model.status().message(), HasSubstr("did you mean 'llama3-8b'"));
  EXPECT_THAT(model.status().message(), HasSubstr("qwen2.5-72b"));
  EXPECT_EQ(model.status().code(), StatusCode::kNotFound);
}

// Loads a model from YAML text and returns the error message ("" when it loaded).
std::string model_error(const std::string& yaml) {
  auto node = parse_yaml(yaml, "m.yaml");
  if (!node.is_ok()) return node.status().message();
  auto model = model_from_config(*node, "m");
  return model.is_ok() ? "" : model.status().message();
}

const char* kGoodModel =
    "source: test\nattention: gqa\nnum_layers: 2\nhidden_size: 64\nnum_attention_heads: 4\n"
    "num_kv_heads: 2\nhead_dim: 16\nintermediate_size: 128\nvocab_size: 100\n"
    "max_position_embeddings: 512\nnum_params: 1000\n";

TEST(PresetLoaderTest, AcceptsAValidModel) { EXPECT_EQ(model_error(kGoodModel), ""); }

TEST(PresetLoaderTest, ErrorsNameFileLineColumnAndTheField) {
  std::string text = kGoodModel;
  text.replace(text.find("num_layers: 2"), 13, "num_layers: -2");
  EXPECT_THAT(model_error(text), HasSubstr("m.yaml:3:13: field 'num_layers' must be a number"));
  text = kGoodModel;
  text.replace(text.find("num_layers: 2"), 13, "num_layers: 0");
  EXPECT_THAT(model_error(text), HasSubstr("m.yaml:3:13"));
  text = kGoodModel;
  text.replace(text.find("num_params: 1000"), 16, "num_params: 99999999999999999999999");
  EXPECT_THAT(model_error(text), HasSubstr("num_params"));
}

TEST(PresetLoaderTest, RejectsMissingUnknownAndInconsistentFields) {
  std::string text = kGoodModel;
  text.replace(text.find("head_dim: 16\n"), 13, "");
  EXPECT_THAT(model_error(text), HasSubstr("missing required field 'head_dim'"));
  EXPECT_THAT(model_error(std::string(kGoodModel) + "num_layer: 3\n"),
              HasSubstr("unknown field in model preset 'num_layer' (did you mean 'num_layers'?)"));
  text = kGoodModel;
  text.replace(text.find("attention: gqa"), 14, "attention: mha");
  EXPECT_THAT(model_error(text), HasSubstr("'mha' needs num_kv_heads == num_attention_heads"));
  text = kGoodModel;
  text.replace(text.find("attention: gqa"), 14, "attention: gpa");
  EXPECT_THAT(model_error(text), HasSubstr("did you mean 'gqa'"));
}

TEST(PresetLoaderTest, RejectsBrokenYamlWithItsPosition) {
  EXPECT_THAT(model_error("num_layers: [1, 2\n"), HasSubstr("m.yaml:"));
  EXPECT_THAT(model_error(std::string(kGoodModel) + "num_layers: 3\n"),
              HasSubstr("duplicate key 'num_layers'"));
  EXPECT_THAT(model_error("- 1\n- 2\n"), HasSubstr("expected a map"));
  EXPECT_THAT(model_error(""), HasSubstr("expected a map"));
}

TEST(PresetLoaderTest, DeviceMemoryNeedsExactlyOneUnit) {
  auto node = load_preset_node(PresetKind::kDevice, "a100-80g");
  ASSERT_TRUE(node.is_ok());
  ConfigNode both = *node;
  both.set("memory_gb", ConfigNode::scalar("80"));
  auto device = device_from_config(both, "x");
  ASSERT_FALSE(device.is_ok());
  EXPECT_THAT(device.status().message(), HasSubstr("exactly one of memory_gib"));
  ConfigNode nz = *node;
  nz.set("kv_layout", ConfigNode::scalar("nz"));
  device = device_from_config(nz, "x");
  ASSERT_FALSE(device.is_ok());
  EXPECT_THAT(device.status().message(), HasSubstr("needs nz_fractal_width"));
}

// Engines budget from the runtime's total (torch's mem_get_info), below nvidia-smi's figure;
// a preset gives it as runtime_memory_gib, and a device without one falls back to its memory.
TEST(PresetLoaderTest, DeviceRuntimeTotalIsWhatEnginesRead) {
  auto node = load_preset_node(PresetKind::kDevice, "a100-40g");
  ASSERT_TRUE(node.is_ok());
  auto device = device_from_config(*node, "x");
  ASSERT_TRUE(device.is_ok()) << device.status().message();
  EXPECT_EQ(device->memory_bytes, 40 * kGiB);
  EXPECT_EQ(device->runtime_memory_bytes, static_cast<uint64_t>(39.56 * kBytesPerGiB));
  EXPECT_EQ(engine_total_memory_bytes(*device), device->runtime_memory_bytes);
  ConfigNode larger = *node;
  larger.set("runtime_memory_gib", ConfigNode::scalar("41"));
  device = device_from_config(larger, "x");
  ASSERT_FALSE(device.is_ok());
  EXPECT_THAT(device.status().message(), HasSubstr("runtime_memory_gib must not exceed"));
  ConfigNode none = *node;
  none.erase("runtime_memory_gib");
  device = device_from_config(none, "x");
  ASSERT_TRUE(device.is_ok()) << device.status().message();
  EXPECT_EQ(engine_total_memory_bytes(*device), 40 * kGiB);
}

}  // namespace
}  // namespace kvsim
