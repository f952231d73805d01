// What `kvsim calibrate --from-log` takes from a log besides its figures
// (core/engine/calibration_setup.h): whether the model it names is the one given, and the
// memory the device held before the engine started.
#include "core/engine/calibration_setup.h"

#include <gtest/gtest.h>

#include <string>

#include "core/base/units.h"
#include "core/engine/startup_log.h"
#include "tests/test_data.h"

namespace kvsim {
namespace {

// An engine's name for a model is kvsim's with an owner before it and a fine-tune, a date or a
// quantization after it: the same model. A different family, version or size is not.
TEST(CalibrationSetupTest, ModelNamesAgreeUpToOwnerFineTuneDateAndQuantization) {
  const struct {
    const char* logged;
    const char* given;
    bool same;
  } cases[] = {
      {"Qwen/Qwen2.5-0.5B", "qwen2.5-0.5b", true},
      {"meta-llama/Meta-Llama-3.1-405B-Instruct", "llama-3.1-405b", true},
      {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b", true},
      {"meta-llama/Llama-3.1-8B-Instruct", "meta-llama__Llama-3.1-8B-Instruct", true},
      {"meta-llama/Meta-Llama-3-8B", "llama3-8b", true},
      {"Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "qwen3-235b-a22b", true},
      {"/home/lz/models/Qwen3-8B-FP8", "qwen3-8b", true},
      {"~/models/Qwen2.5-7B-Instruct-AWQ", "qwen2.5-7b-instruct", true},
      {"/models/Qwen3-32B-20250429/", "qwen3-32b", true},
      {"../models/Qwen2.5-Math-1.5B", "qwen2.5-math-1.5b", true},
      // A Hugging Face hub cache path ends in a commit hash: the repository folder names it.
      {"/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/9c925d6", "qwen3-8b", true},
      {"/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/9c925d6", "qwen3-14b", false},
      {"Qwen/Qwen2.5-3B", "qwen2.5-3b-instruct", true},  // either way round
      {"Qwen/Qwen2.5-0.5B-Instruct", "qwen3-0.6b", false},
      {"Qwen/Qwen2.5-0.5B-Instruct", "qwen2.5-1.5b-instruct", false},
      {"meta-llama/Llama-3.1-8B-Instruct", "qwen3-8b", false},
      {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-80b", false},
      {"Qwen/Qwen3-8B", "qwen3-80b", false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(same_model_names(c.logged, c.given), c.same) << c.logged << " vs " << c.given;
  }
}

CalibrationFlags flags(const std::string& model) {
  CalibrationFlags f;
  f.model = model;
  f.device = "a100-80g";
  return f;
}

TEST(CalibrationSetupTest, ALogNamingAnotherModelSaysSo) {
  const StartupLog log = parse_startup_log(
                             "non-default args: {'model': 'Qwen/Qwen2.5-0.5B-Instruct'}\n"
                             "GPU KV cache size: 1,629,520 tokens\n",
                             "mismatch.log")
                             .value();
  const CalibrationSetup other = resolve_calibration_setup(log, flags("qwen3-8b")).value();
  EXPECT_NE(other.model_mismatch.find("Qwen/Qwen2.5-0.5B-Instruct"), std::string::npos)
      << other.model_mismatch;
  EXPECT_NE(other.model_mismatch.find("qwen3-8b"), std::string::npos) << other.model_mismatch;
  EXPECT_FALSE(resolve_calibration_setup(log, flags("qwen2.5-7b")).value().model_mismatch.empty());
  const std::string same =
      (testing::source_dir() / "tests/data/engine_memory/models/qwen2.5-0.5b.yaml").string();
  EXPECT_EQ(resolve_calibration_setup(log, flags(same)).value().model_mismatch, "");
}

// "Free memory on device: 23.45 / 43.24 GiB": 19.79 GiB were in use before the engine started
// (another service on the chip, vllm-ascend #14004), and the prediction takes it.
TEST(CalibrationSetupTest, TheFreeMemoryAtStartGivesWhatTheDeviceHeld) {
  const StartupLog log = parse_startup_log(
                             "Free memory on device: 23.45 / 43.24 GiB\n"
                             "Available KV cache memory: 0.09 GiB (halved for workspace)\n",
                             "shared.log")
                             .value();
  const CalibrationSetup setup = resolve_calibration_setup(log, flags("qwen3-8b")).value();
  const double in_use = static_cast<double>(setup.engine.device_used_bytes) / kBytesPerGiB;
  EXPECT_NEAR(in_use, 43.24 - 23.45, 1e-6);
  EXPECT_TRUE(setup.model_mismatch.empty());  // the log names no model
}

}  // namespace
}  // namespace kvsim
