// kvsim kernels validate, generate and ppl as a user runs them: exit codes, JSON keys, exact
// output, and clear messages (exit 2) for bad files and options.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/run_cli.h"
#include "tests/kernels/tiny_llama.h"
#include "tests/test_data.h"

namespace kvsim::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string model_args(const TinyModelFiles& files) {
  return "--checkpoint " + files.checkpoint().string() + " --tokenizer " +
         files.tokenizer().string();
}

TEST(KernelsCliTest, ValidateJsonHasOneEntryPerKernelAndPasses) {
  const CliResult result = run_kvsim("kernels validate --json --cases 4 --seed 3");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json out = json::parse(result.out, nullptr, false);
  ASSERT_FALSE(out.is_discarded());
  EXPECT_EQ(out["pass"], true);
  ASSERT_EQ(out["kernels"].size(), 16u);
  for (const json& k : out["kernels"]) {
    for (const char* key : {"name", "cases", "max_abs_err", "max_rel_err", "tolerance", "pass"}) {
      EXPECT_TRUE(k.contains(key)) << key;
    }
    EXPECT_EQ(k["cases"], 4);
    EXPECT_LE(k["max_rel_err"].get<double>(), k["tolerance"].get<double>()) << k["name"];
  }
  EXPECT_EQ(out["kernels"].size(), out.size() == 2 ? 16u : 0u);  // only "pass" and "kernels"
}

TEST(KernelsCliTest, ValidateTextAndBadOptions) {
  const CliResult text = run_kvsim("kernels validate --cases 2");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_THAT(text.out, HasSubstr("decode_nz_fp16"));
  EXPECT_THAT(text.out, HasSubstr("all kernels within tolerance"));
  EXPECT_EQ(run_kvsim("kernels validate --cases 0").exit_code, 2);
  EXPECT_EQ(run_kvsim("kernels").exit_code, 2);
}

TEST(GenerateCliTest, PrintsThePromptAndItsContinuation) {
  const TinyModelFiles files("generate");
  const CliResult result =
      run_kvsim("generate " + model_args(files) + " --prompt 'the x' --steps 12");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, StartsWith("the x"));
  EXPECT_THAT(result.err, HasSubstr("achieved tok/s"));
  // Greedy decoding is deterministic; ND and NZ caches give the same text.
  const CliResult nz =
      run_kvsim("generate " + model_args(files) + " --prompt 'the x' --steps 12 --kv-layout nz");
  EXPECT_EQ(nz.out, result.out);
  const CliResult sampled =
      run_kvsim("generate " + model_args(files) + " --steps 20 --temperature 1 --seed 5");
  EXPECT_EQ(sampled.exit_code, 0);
  EXPECT_EQ(run_kvsim("generate " + model_args(files) + " --steps 20 --temperature 1 --seed 5").out,
            sampled.out);
}

TEST(GenerateCliTest, KjvTinyContinuesAsItsSourcesSay) {
  KVSIM_REQUIRE_DATA("models/kjv-tiny/model.bin");
  const CliResult result =
      run_kvsim("generate --prompt 'In the beginning' --steps 80 --temperature 0");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              StartsWith("In the beginning of the LORD that the LORD thy LORD, and the LORD"));
}

TEST(PplCliTest, JsonHasTheDocumentedKeysAndFullEqualsWindowOfTheContext) {
  const TinyModelFiles files("ppl");
  {
    std::ofstream text(files.dir() / "text.txt");
    text << "the quick brown fox jumps over the lazy dog. the end.";
  }
  const CliResult result =
      run_kvsim("ppl " + model_args(files) + " --text " + (files.dir() / "text.txt").string() +
                " --ctx 16 --policy window:16 --policy sink:2,6 "
                "--policy int8 --budgets 4,8 --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json out = json::parse(result.out, nullptr, false);
  ASSERT_FALSE(out.is_discarded()) << result.out;
  // 53 bytes, no BOS, no dummy prefix: "the" merges at the start (3 -> 1) and " the" twice
  // (4 -> 1): 53 - 2 - 3 - 3 tokens.
  EXPECT_EQ(out["tokens"], 45);
  const json& results = out["results"];
  ASSERT_EQ(results.size(), 6u);  // full, window:4, window:8, sink:2,2, sink:2,6, int8
  const std::vector<std::string> names = {"full",     "window:4", "window:8",
                                          "sink:2,2", "sink:2,6", "int8"};
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(results[i]["policy"], names[i]);
    for (const char* key :
         {"policy", "budget_tokens", "ppl", "delta_ppl", "kl", "top1_agreement", "kv_bytes"}) {
      EXPECT_TRUE(results[i].contains(key)) << key;
    }
  }
  EXPECT_TRUE(results[0]["budget_tokens"].is_null());
  EXPECT_EQ(results[1]["budget_tokens"], 4);
  EXPECT_EQ(results[0]["delta_ppl"], 0.0);
  EXPECT_EQ(results[0]["top1_agreement"], 1.0);
  // Without budgets, window:16 (the whole window) is exactly full.
  const CliResult same =
      run_kvsim("ppl " + model_args(files) + " --text " + (files.dir() / "text.txt").string() +
                " --ctx 16 --policy full --policy window:16 --json");
  const json pair = json::parse(same.out, nullptr, false);
  ASSERT_EQ(pair["results"].size(), 2u);
  EXPECT_EQ(pair["results"][0]["ppl"], pair["results"][1]["ppl"]);
}

// The output names the model it measured, its shape and size, and how to measure another.
TEST(PplCliTest, NamesTheModelItMeasuredAndHowToGiveAnother) {
  const TinyModelFiles files("pplmodel");
  {
    std::ofstream text(files.dir() / "text.txt");
    text << "the quick brown fox jumps over the lazy dog.";
  }
  const std::string args = "ppl " + model_args(files) + " --text " +
                           (files.dir() / "text.txt").string() + " --ctx 16 --policy full";
  const CliResult text = run_kvsim(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  // tiny_config(): vocab 262 x dim 32 + 2 layers x (2 norms + wq, wo 32x32 + wk, wv 16x32 +
  // w1, w2, w3 48x32) + the final norm = 8,384 + 2 x 7,744 + 32.
  EXPECT_THAT(text.out, StartsWith("Model    " + files.checkpoint().string() +
                                   ": a llama2.c checkpoint\n         2 layers, dim 32, 4 query / "
                                   "2 KV heads, FFN 48, vocab 262, 64 positions, 23,904 "
                                   "parameters\n"));
  EXPECT_THAT(text.out, HasSubstr("another model: --checkpoint model.bin --tokenizer"));
  const CliResult json_run = run_kvsim(args + " --json");
  ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
  const json out = json::parse(json_run.out, nullptr, false);
  EXPECT_EQ(out["model"]["params"], 23'904);
  EXPECT_EQ(out["model"]["bundled"], false);
  EXPECT_EQ(out["model"]["layers"], 2);
  EXPECT_EQ(out["model"]["checkpoint"], files.checkpoint().string());
}

// The bundled model is named as such, with the size its SOURCES.md gives (759,296).
TEST(PplCliTest, NamesTheBundledModel) {
  KVSIM_REQUIRE_DATA("models/kjv-tiny/model.bin");
  const CliResult r = run_kvsim("ppl --policy full --max-tokens 64");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("kvsim's bundled kjv-tiny"));
  EXPECT_THAT(r.out, HasSubstr("759,296 parameters"));
}

TEST(PplCliTest, BadFilesAndOptionsExitWithTwoAndSayWhy) {
  const TinyModelFiles files("pplbad");
  const std::string text = " --text " + files.tokenizer().string();
  std::vector<uint8_t> truncated =
      kernels::serialize_llama_checkpoint(random_weights(tiny_config(), 1));
  truncated.resize(truncated.size() - 8);
  write_bytes(files.dir() / "short.bin", truncated);
  CliResult r = run_kvsim("ppl --checkpoint " + (files.dir() / "short.bin").string() +
                          " --tokenizer " + files.tokenizer().string() + text + " --policy full");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, AllOf(HasSubstr("short.bin: truncated"), HasSubstr("implies")));
  write_bytes(files.dir() / "bad_tok.bin", {1, 0, 0});
  r = run_kvsim("ppl --checkpoint " + files.checkpoint().string() + " --tokenizer " +
                (files.dir() / "bad_tok.bin").string() + text + " --policy full");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("max_token_length"));
  r = run_kvsim("ppl " + model_args(files) + text + " --policy lru");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown KV policy 'lru'"));
  r = run_kvsim("ppl " + model_args(files) + text + " --policy full --kv-layout nzz");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("did you mean 'nz'"));
  r = run_kvsim("ppl " + model_args(files) + text + " --policy full --ctx 100");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--ctx 100"));
  r = run_kvsim("ppl " + model_args(files) + " --text /nonexistent.txt --policy full");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot open"));
  r = run_kvsim("generate --checkpoint /nonexistent/model.bin");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot open file"));
}

}  // namespace
}  // namespace kvsim::testing
