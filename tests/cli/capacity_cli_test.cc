// The capacity, layout and presets commands as a user runs them: exit codes, JSON keys and
// exact numbers, and clear messages for bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/run_cli.h"

namespace kvsim::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json run_json(const std::string& args) {
  const CliResult result = run_kvsim(args + " --json");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return json::parse(result.out, nullptr, /*allow_exceptions=*/false);
}

TEST(CapacityCliTest, JsonHasTheDocumentedKeysAndExactFigures) {
  const json out = run_json("capacity --model gpt3-175b --batch 16 --seq-len 1024");
  EXPECT_EQ(out["kv_bytes_for_request"], 77'309'411'328ull);
  EXPECT_EQ(out["kv_bytes_per_token"], 4'718'592u);
  EXPECT_TRUE(out["num_blocks"].is_null());  // no device
  for (const char* key : {"kv_bytes_per_token", "kv_bytes_per_block", "kv_bytes_for_request",
                          "weight_bytes", "kv_budget_bytes", "num_blocks", "num_usable_blocks",
                          "max_tokens", "max_batch_at_seq_len", "max_seq_len_at_batch"}) {
    EXPECT_TRUE(out.contains(key)) << key;
  }
}

TEST(CapacityCliTest, HandDefinedModelAndDevice) {
  const json out = run_json(
      "capacity --layers 32 --kv-heads 16 --head-dim 128 --seq-len 1024 --device a100-80g "
      "--kv-budget-bytes 1073741824");
  EXPECT_EQ(out["kv_bytes_for_request"], 268'435'456u);
  EXPECT_EQ(out["kv_bytes_per_block"], 262'144u * 16);
  EXPECT_EQ(out["num_blocks"], 1'073'741'824u / (262'144u * 16));  // 256
  EXPECT_EQ(out["max_tokens"], 1'073'741'824u / 262'144u);
  // 256 blocks would hold four 1024-token sequences of 64 blocks, but block 0 is the null
  // block: 255 are usable, so three fit (vLLM would log "Maximum concurrency 4.00x").
  EXPECT_EQ(out["num_usable_blocks"], 255u);
  EXPECT_EQ(out["max_batch_at_seq_len"], 3u);
}

TEST(CapacityCliTest, TextShowsTheFormulaWithNumbers) {
  const CliResult result = run_kvsim("capacity --model llama3-8b --device a100-80g");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("= 2 x 32 x 8 x 128 x 2"));
  EXPECT_THAT(result.out, HasSubstr("= 131,072 B"));
  EXPECT_THAT(result.out, HasSubstr("KV budget per device (what vllm"));
  EXPECT_THAT(result.out, HasSubstr("- activation peak = "));
}

TEST(CapacityCliTest, AllDevicesTable) {
  const CliResult result = run_kvsim("capacity --model llama3-8b --device all");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("ascend-310p3"));
  EXPECT_THAT(result.out, HasSubstr("h200"));
  const json all = run_json("capacity --model llama3-8b --device all");
  ASSERT_TRUE(all.is_array());
  EXPECT_EQ(all.size(), 23u);
}

// A restart with vLLM's compile cache warm profiles without the compile (model runner v2: a
// dense model on 0.28), so its pool is larger than a first launch's.
TEST(CapacityCliTest, CompileCacheWarmIsARestart) {
  const std::string args = "capacity --model llama3-8b --device l40s --engine-version 0.28.0";
  const json cold = run_json(args);
  const json warm = run_json(args + " --compile-cache warm");
  EXPECT_EQ(run_json(args + " --compile-cache cold")["num_blocks"], cold["num_blocks"]);
  EXPECT_GT(warm["num_blocks"].get<uint64_t>(), cold["num_blocks"].get<uint64_t>());
  const CliResult bad = run_kvsim(args + " --compile-cache hot");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--compile-cache: expected 'warm' or 'cold', got 'hot'"));
}

// --speculative: the drafter's weights and KV beside the model's, sized as the simulator sizes
// its pool: the EAGLE-3 preset's pool (the scenario's cache settings: block 16, utilization
// 0.9, 256 sequences, 8192 tokens) is what `kvsim capacity` prints for the same flags.
TEST(CapacityCliTest, ASpeculativeDrafterTakesItsLayerFromThePoolAsTheSimulatorDoes) {
  const std::string flags =
      "capacity --model llama-3.1-8b-instruct --device h100-sxm --block-size 16 "
      "--max-num-seqs 256 --max-num-batched-tokens 8192 --mem-fraction 0.9";
  const json plain = run_json(flags);
  const json drafted = run_json(flags + " --speculative eagle3:3");
  EXPECT_EQ(drafted["kv_bytes_per_block"].get<uint64_t>() * 32,
            plain["kv_bytes_per_block"].get<uint64_t>() * 33);
  EXPECT_GT(drafted["weight_bytes"].get<uint64_t>(), plain["weight_bytes"].get<uint64_t>());
  const CliResult sim =
      run_kvsim("simulate eagle3-llama3.1-8b --set workload.synthetic.num_requests=1 --json");
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_EQ(json::parse(sim.out)["num_blocks"], drafted["num_blocks"]);
  const CliResult bad = run_kvsim(flags + " --speculative eagle3:3 --draft-model llama3-8b");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--draft-model"));
}

TEST(CapacityCliTest, BadInputExitsWithTwoAndAMessage) {
  CliResult result = run_kvsim("capacity --model llama3-9b");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("did you mean 'llama3-8b'"));
  result = run_kvsim("capacity --model llama3-8b --device h300");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("valid: a100-40g"));
  result = run_kvsim("capacity --model llama3-8b --dtype fp12");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("unknown dtype 'fp12'"));
  result = run_kvsim("capacity --model llama3-8b --batch -3");
  EXPECT_EQ(result.exit_code, 2);
  result = run_kvsim("capacity --model llama3-8b --batch 99999999999999999999999");
  EXPECT_EQ(result.exit_code, 2);
  result = run_kvsim("capacity --model llama3-8b --device ascend-310p3 --dtype bf16");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("does not store KV as bf16"));
  result = run_kvsim("capacity --model /nonexistent/model.yaml");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("cannot open '/nonexistent/model.yaml'"));
  result = run_kvsim("capacity");
  EXPECT_EQ(result.exit_code, 2);
}

TEST(LayoutCliTest, LocateGivesBothOffsets) {
  const json out =
      run_json("layout --model llama3-8b --device ascend-310p3 --block-size 128 --locate 300,2,5");
  EXPECT_EQ(out["nd_block_shape"], json::array({128, 8, 128}));
  EXPECT_EQ(out["nz_block_shape"], json::array({64, 128, 16}));
  EXPECT_EQ(out["block"], 2);
  EXPECT_EQ(out["slot"], 44);
  EXPECT_EQ(out["nd_offset"], (44 * 8 + 2) * 128 + 5);
  const int c = 2 * 128 + 5;
  EXPECT_EQ(out["nz_offset"], ((c / 16) * 128 + 44) * 16 + c % 16);
  EXPECT_EQ(out["nz_padding_fraction"], 0.0);
  EXPECT_EQ(out["nd_block_bytes"], 128 * 8 * 128 * 2);
}

TEST(LayoutCliTest, RejectsOutOfRangeLocate) {
  const CliResult result = run_kvsim("layout --model llama3-8b --locate 1,8,0");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("head must be < 8"));
}

TEST(PresetsCliTest, ListsEveryKind) {
  const json out = run_json("presets");
  EXPECT_EQ(out["models"].size(), 49u);   // presets/models
  EXPECT_EQ(out["devices"].size(), 23u);  // presets/devices
  EXPECT_TRUE(out.contains("scenarios"));
}

}  // namespace
}  // namespace kvsim::testing
