// Models from Hugging Face configs as a user runs them: `kvsim model import` and its YAML,
// `--model config.json`, real start-up logs' token counts from their printed KV memory, the
// by-group capacity of hybrid models, and `kvsim simulate` running a hybrid model by group.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/base/units.h"
#include "tests/cli/run_cli.h"

namespace kvsim::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

std::string config(const std::string& file) {
  const char* root = std::getenv("KVSIM_SOURCE_DIR");
  return (std::filesystem::path(root != nullptr ? root : ".") / "presets/hf" / file).string();
}

json run_json(const std::string& args) {
  const CliResult result = run_kvsim(args + " --json");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return json::parse(result.out, nullptr, /*allow_exceptions=*/false);
}

TEST(ModelCliTest, ImportPrintsYamlThatLoadsToTheSameModel) {
  const CliResult imported =
      run_kvsim("model import " + config("openai__gpt-oss-120b.json") + " --name gpt-oss-120b");
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_THAT(imported.out, HasSubstr("116,829,156,672 parameters, 5,711,982,912 active"));
  EXPECT_THAT(imported.out, HasSubstr("kind: sliding_window"));
  const auto yaml = std::filesystem::temp_directory_path() /
                    ("kvsim_import_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(yaml) << imported.out;
  const std::string args = " --device h100-sxm --dtype bf16";
  json from_yaml = run_json("capacity --model " + yaml.string() + args);
  json from_json = run_json("capacity --model " + config("openai__gpt-oss-120b.json") + args);
  from_yaml.erase("model");
  from_json.erase("model");
  EXPECT_EQ(from_yaml, from_json);
  EXPECT_EQ(from_json["kv_cache_groups"]["num_groups"], 2);
  std::filesystem::remove(yaml);
}

TEST(ModelCliTest, BadConfigsExitWithTwoAndSayWhy) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto mamba = dir / ("kvsim_mamba_" + std::to_string(::getpid()) + ".json");
  std::ofstream(mamba) << R"({"architectures": ["MambaForCausalLM"], "model_type": "mamba"})";
  CliResult result = run_kvsim("capacity --model " + mamba.string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("unsupported architecture 'MambaForCausalLM"));
  EXPECT_THAT(result.err, HasSubstr("Qwen3NextForCausalLM (qwen3_next)"));
  std::ofstream(mamba) << "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,,\n}";
  result = run_kvsim("model import " + mamba.string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr(mamba.string() + ":3:"));
  std::filesystem::remove(mamba);
  result = run_kvsim("model import /nonexistent/config.json");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("cannot open"));
}

// A start-up log: the model's config, the KV memory it printed (GiB, two decimals), the
// tokens it printed, and the settings that matter. Ids are those of the research collection
// of real vLLM / SGLang logs (their sources: GitHub issues, committed notes and tutorials).
struct LogLine {
  const char* id;
  const char* file;
  double kv_gib;
  uint64_t tokens;
  const char* args;
};

// The arithmetic closes exactly with the printed GiB (floor(GiB x 2^30)).
constexpr LogLine kExact[] = {
    {"v1_0.28.0_qwen3-14b_46gb", "Qwen__Qwen3-14B.json", 11.57, 75'824, ""},
    {"v1_0.10.2_qwen3-14b_lmcache", "Qwen__Qwen3-14B.json", 6.51, 42'656, ""},
    // Llama-3.1-8B-Instruct with an EAGLE draft: one more layer in the KV page.
    {"v1_0.9.1dev_llama31-8b-eagle_h100", "meta-llama__Llama-3.1-8B-Instruct.json", 51.63, 410'128,
     " --layers 33"},
};

TEST(ModelCliTest, StartUpLogsTokenCountsFromTheirKvMemory) {
  for (const LogLine& log : kExact) {
    const auto budget = static_cast<uint64_t>(log.kv_gib * kBytesPerGiB);
    const json out = run_json("capacity --model " + config(log.file) + " --dtype bf16" +
                              " --kv-budget-bytes " + std::to_string(budget) + log.args);
    EXPECT_EQ(out["max_tokens"], log.tokens) << log.id;
  }
}

// Logs whose printed GiB is rounded more coarsely than one block: the token count lies
// between the counts at the two ends of the rounding interval (+-0.005 GiB; SGLang prints K
// and V separately, so their sum is +-0.01 GiB).
constexpr struct {
  LogLine log;
  double half_width_gib;
} kRounded[] = {
    {{"v1_qwen25-7b-awq_16gb_wsl2", "Qwen__Qwen2.5-7B-Instruct.json", 8.00, 149'712, ""}, 0.005},
    {{"v1_qwen3-30b-moe_tp4_l40s", "Qwen__Qwen3-30B-A3B.json", 23.74, 1'037'152, " --tp 4"}, 0.005},
    {{"v0_0.6.4_llama31-8b_rtx3090_3lens", "meta-llama__Llama-3.1-8B-Instruct.json", 3.81,
      1952 * 16, ""},
     0.005},
    {{"sglang_qwen3-235b-a22b-fp8_4xh100", "Qwen__Qwen3-235B-A22B.json", 8.23 + 8.23, 367'404,
      " --tp 4 --block-size 1"},
     0.01},
};

TEST(ModelCliTest, RoundedLogsFallInsideTheirRoundingInterval) {
  for (const auto& [log, half] : kRounded) {
    const auto tokens = [&](double gib) {
      const auto budget = static_cast<uint64_t>(gib * kBytesPerGiB);
      return run_json("capacity --model " + config(log.file) + " --dtype bf16" +
                      " --kv-budget-bytes " + std::to_string(budget) + log.args)["max_tokens"]
          .get<uint64_t>();
    };
    EXPECT_LE(tokens(log.kv_gib - half), log.tokens) << log.id;
    EXPECT_GE(tokens(log.kv_gib + half), log.tokens) << log.id;
  }
}

TEST(ModelCliTest, HybridCapacityShowsTheGroupsAndTheirFormulas) {
  const CliResult text =
      run_kvsim("capacity --model gemma-3-27b-it --dtype bf16 --kv-budget-bytes 42949672960");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out,
              HasSubstr("sliding_window W=1,024, 52 layers: 2 (K and V) x 52 x 16 x 128 x 2 = "
                        "425,984 B per token"));
  EXPECT_THAT(text.out, HasSubstr("full, 10 layers: 2 (K and V) x 10 x 16 x 128 x 2 = 81,920 B"));
  EXPECT_THAT(text.out, HasSubstr("7 groups of 10 layer slots (8 padding)"));
  EXPECT_THAT(text.out, HasSubstr("= floor(blocks / 7 groups) x 16 = 74,896"));
  const json out = run_json("capacity --model nemotron-h-8b --kv-budget-bytes 42949672960");
  EXPECT_EQ(out["block_size"], 528);
  EXPECT_EQ(out["layer_groups"][0]["kind"], "recurrent");
  EXPECT_EQ(out["layer_groups"][0]["state_bytes_per_seq"], 24u * 2'158'592);
  EXPECT_EQ(out["kv_cache_groups"]["layers_per_group"], 4);
  const CliResult layout = run_kvsim("layout --model nemotron-h-8b");
  ASSERT_EQ(layout.exit_code, 0) << layout.err;
  EXPECT_THAT(layout.out, HasSubstr("recurrent, 24 layers: 24 x (3 x 10,240 + 128 x 64 x 128)"));
  EXPECT_THAT(layout.out, HasSubstr("none, 24 layers: no cache"));
  const CliResult hand = run_kvsim("capacity --model gemma-3-27b-it --kv-heads 8");
  EXPECT_EQ(hand.exit_code, 2);
  EXPECT_THAT(hand.err, HasSubstr("layer groups differ"));
}

TEST(ModelCliTest, SimulateRunsAHybridModelByGroupAndRefusesWhatItsCacheDoesNotDo) {
  const std::string small = " --set workload.synthetic.num_requests=50";
  const json hybrid = run_json("simulate default --set model=gpt-oss-20b" + small);
  EXPECT_EQ(hybrid["requests_completed"], 50);
  const CliResult swap =
      run_kvsim("simulate default --set model=gpt-oss-20b --set scheduler.preemption=swap");
  EXPECT_EQ(swap.exit_code, 2);
  EXPECT_THAT(swap.err, HasSubstr("'gpt-oss-20b' is hybrid"));
  EXPECT_THAT(swap.err, HasSubstr("not swapped"));
  // A uniform model given as config.json simulates like its preset.
  const json preset = run_json("simulate default --set model=llama3-8b" + small);
  const json imported = run_json(
      "simulate default --set model=" + config("meta-llama__Meta-Llama-3-8B.json") + small);
  EXPECT_EQ(preset["num_blocks"], imported["num_blocks"]);
  EXPECT_EQ(preset["total_tokens_per_s"], imported["total_tokens_per_s"]);
}

}  // namespace
}  // namespace kvsim::testing
