// `kvsim capacity --tp --dp --ep --pp`: the per-rank weights and KV of a parallel layout
// (core/engine/parallel_layout.h) in text and JSON, and bad layouts exiting 2 with the field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/run_cli.h"

namespace kvsim::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// DeepSeek-V3 fp8 at EP 8 x DP 8: the hand-worked 100,840,710,832 B per rank of
// tests/core/engine/parallel_layout_test.cc, the whole latent (61 x 576 x 2 B) per rank, and
// eight DP ranks' tokens for the layout.
TEST(CapacityParallelCliTest, DeepSeekV3AtEp8Dp8PerRank) {
  const std::string args =
      "capacity --model deepseek-v3 --device h200 --tp 8 --dp 8 --ep 8 --kv-budget-bytes "
      "1124352000";
  const CliResult text = run_kvsim(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("Layout  TP 8 = 8 attention DP x attention TP 1, EP 8, PP 1"));
  EXPECT_THAT(text.out, HasSubstr("= 81,758,552,064 + 212,860,928 + 18,869,297,840 B = "
                                  "100,840,710,832 B"));
  EXPECT_THAT(text.out, HasSubstr("61 layers x the whole latent (not split by TP) -> 70,272 B"));
  // 1,124,352,000 B / (70,272 x 16 B per block) = 1000 blocks, 16,000 tokens a rank.
  EXPECT_THAT(text.out, HasSubstr("= 8 x 16,000 = 128,000"));
  const CliResult result = run_kvsim(args + " --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json out = json::parse(result.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_EQ(out["weight_bytes"], 100'840'710'832ull);
  EXPECT_EQ(out["kv_bytes_per_token_per_device"], 70'272u);
  EXPECT_EQ(out["parallel"]["attention_tp"], 1u);
  EXPECT_EQ(out["parallel"]["routed_expert_bytes_per_rank"], 81'758'552'064ull);
  EXPECT_EQ(out["parallel"]["max_tokens_all_dp_ranks"], 128'000u);
}

// Qwen3-235B-A22B at TP 4 EP 4: one of the 4 KV heads per rank, 94 x 2 x 128 x 2 B.
TEST(CapacityParallelCliTest, Qwen3AtTp4Ep4) {
  const json out = json::parse(
      run_kvsim("capacity --model qwen3-235b-a22b --weight-dtype bf16 --tp 4 --ep 4 --json").out,
      nullptr, false);
  EXPECT_EQ(out["kv_bytes_per_token_per_device"], 48'128u);
  EXPECT_EQ(out["weight_bytes"], 117'620'741'888ull);
}

// A hybrid model (sliding-window groups) counts its tokens by its own rule (core/model/
// kv_groups.h); the layout's tokens are still dp x one rank's.
TEST(CapacityParallelCliTest, HybridModelsPrintTheDpTokensToo) {
  const CliResult result =
      run_kvsim("capacity --model gemma-3-27b-it --tp 4 --dp 2 --device h100-sxm --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json out = json::parse(result.out, nullptr, false);
  EXPECT_EQ(out["parallel"]["attention_tp"], 2u);
  EXPECT_EQ(out["parallel"]["max_tokens_all_dp_ranks"], 2 * out["max_tokens"].get<uint64_t>());
  const CliResult text =
      run_kvsim("capacity --model gemma-3-27b-it --tp 4 --dp 2 --device h100-sxm");
  EXPECT_THAT(text.out, HasSubstr("Tokens the layout caches = dp x max tokens of one rank's DP "
                                  "rank = 2 x "));
}

TEST(CapacityParallelCliTest, WithoutTheFlagsNoLayoutIsPrinted) {
  const CliResult result = run_kvsim("capacity --model qwen3-235b-a22b --tp 4 --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(json::parse(result.out, nullptr, false).contains("parallel"));
}

TEST(CapacityParallelCliTest, BadLayoutsExit2NamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {"--model qwen3-8b --tp 2 --ep 2", "parallel.ep (--ep) 2 needs a mixture-of-experts"},
      {"--model qwen3-235b-a22b --tp 8 --dp 3", "parallel.dp (--dp) 3 must divide the 8"},
      {"--model qwen3-235b-a22b --tp 6 --ep 3", "parallel.ep (--ep) 3 must divide the 128"},
      {"--model qwen3-235b-a22b --pp 3", "parallel.pp (--pp) 3 must divide the 94 layers"},
      {"--model qwen3-235b-a22b --dp 0", "parallel.dp (--dp) 0 must be >= 1"},
      {"--model qwen3-235b-a22b --device h100-sxm --ep 0", "parallel.ep (--ep) 0 must be >= 1"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult result = run_kvsim(std::string("capacity ") + args);
    EXPECT_EQ(result.exit_code, 2) << args;
    EXPECT_THAT(result.err, HasSubstr(message)) << args;
  }
}

}  // namespace
}  // namespace kvsim::testing
