// The perplexity harness and the policy specs of `kvsim ppl`, on the test's own random model
// and, when present, on kjv-tiny against the reference figures of its SOURCES.md.
#include "kernels/perplexity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernels/kv_policy.h"
#include "kernels/tokenizer.h"
#include "tests/kernels/kjv_tiny.h"
#include "tests/kernels/tiny_llama.h"
#include "tests/test_data.h"

namespace kvsim::kernels {
namespace {

using ::testing::HasSubstr;

std::vector<KvPolicy> policies(std::initializer_list<const char*> specs) {
  std::vector<KvPolicy> out;
  for (const char* spec : specs) {
    auto p = parse_kv_policy(spec);
    EXPECT_TRUE(p.is_ok()) << spec << ": " << p.status().message();
    out.push_back(*p);
  }
  return out;
}

std::vector<int> text_tokens(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(3, 261);
  std::vector<int> tokens(n);
  for (int& t : tokens) t = pick(rng);
  return tokens;
}

TEST(KvPolicyTest, ParsesSpecsAndResizesThemToABudget) {
  EXPECT_EQ(parse_kv_policy("sink:4,60")->name, "sink:4,60");
  EXPECT_EQ(parse_kv_policy("int4:32,128")->kivi.group, 32u);
  EXPECT_EQ(parse_kv_policy("int8")->quant, KvQuant::kInt8);
  EXPECT_FALSE(parse_kv_policy("full")->evicts());
  EXPECT_EQ(*parse_kv_policy("h2o:8,8")->budget_tokens(), 16u);
  EXPECT_EQ(kv_policy_at_budget("window:16", 128)->name, "window:128");
  EXPECT_EQ(kv_policy_at_budget("sink:4,12", 64)->name, "sink:4,60");
  EXPECT_EQ(kv_policy_at_budget("h2o:8,8", 64)->name, "h2o:32,32");
  EXPECT_EQ(kv_policy_at_budget("h2o:1,3", 20)->name, "h2o:5,15");
  EXPECT_EQ(kv_policy_at_budget("int8", 64)->name, "int8");  // not an eviction policy
}

TEST(KvPolicyTest, BadSpecsSayWhatIsExpected) {
  EXPECT_THAT(parse_kv_policy("lru").status().message(),
              AllOf(HasSubstr("unknown KV policy 'lru'"), HasSubstr("int4:G,R")));
  EXPECT_THAT(parse_kv_policy("window:0").status().message(), HasSubstr("positive"));
  EXPECT_THAT(parse_kv_policy("int4:32").status().message(), HasSubstr("int4:G,R"));
  EXPECT_THAT(kv_policy_at_budget("sink:4,12", 4).status().message(), HasSubstr("no window"));
  EXPECT_THAT(kv_policy_at_budget("h2o:8,8", 1).status().message(), HasSubstr("too small"));
}

TEST(PerplexityTest, FullAndAWindowOfTheContextGiveIdenticalResults) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 30));
  const std::vector<int> tokens = text_tokens(150, 1);  // windows of 40: 40, 40, 40, 30
  auto report = measure_perplexity(model, tokens, {40, {}}, policies({"window:40", "window:8"}));
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  EXPECT_EQ(report->tokens, 150u);
  ASSERT_EQ(report->results.size(), 3u);
  const PolicyResult& full = report->results[0];
  const PolicyResult& window = report->results[1];
  EXPECT_EQ(full.policy, "full");
  EXPECT_FALSE(full.budget_tokens.has_value());
  EXPECT_EQ(window.ppl, full.ppl);
  EXPECT_EQ(window.delta_ppl, 0.0);
  EXPECT_EQ(window.kl, 0.0);
  EXPECT_EQ(window.top1_agreement, 1.0);
  const PolicyResult& small = report->results[2];
  EXPECT_EQ(*small.budget_tokens, 8u);
  EXPECT_NE(small.ppl, full.ppl);
  EXPECT_GT(small.kl, 0.0);
  EXPECT_LT(small.top1_agreement, 1.0);
  // KV bytes: 2 layers x K,V x 2 heads x 8 dims x 4 bytes = 256 bytes per token.
  EXPECT_EQ(full.kv_bytes, 40u * 256u);
  EXPECT_EQ(small.kv_bytes, 8u * 256u);
}

TEST(PerplexityTest, QuantizedPoliciesReportTheirBytes) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 31));
  const std::vector<int> tokens = text_tokens(64, 2);
  auto report = measure_perplexity(model, tokens, {64, {}}, policies({"int8", "int4:4,16"}));
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  // int8: 32 head vectors per token (2 layers x K,V x 2 heads... x 4) of 8 bytes + scale/zero.
  EXPECT_EQ(report->results[1].kv_bytes, 64u * 8u * (8u + 4u));
  // int4:4,16 over 64 tokens: 48 quantized (4 bytes + 2 groups x 4 bytes per vector), 16 fp32.
  EXPECT_EQ(report->results[2].kv_bytes, 48u * 8u * (4u + 8u) + 16u * 256u);
  for (const PolicyResult& r : report->results) EXPECT_GT(r.ppl, 1.0) << r.policy;
  EXPECT_GT(report->results[1].kl, 0.0);
}

TEST(PerplexityTest, BadInputsAreStatuses) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 32));
  EXPECT_THAT(measure_perplexity(model, text_tokens(10, 3), {65, {}}, {}).status().message(),
              HasSubstr("expected 1..64"));
  EXPECT_THAT(measure_perplexity(model, {}, {8, {}}, {}).status().message(),
              HasSubstr("no tokens"));
  const std::vector<int> bad = {5, 999};
  EXPECT_THAT(measure_perplexity(model, bad, {8, {}}, {}).status().message(),
              HasSubstr("token id 999"));
  KvStoreOptions nz;
  nz.nz = true;
  EXPECT_THAT(
      measure_perplexity(model, text_tokens(10, 4), {8, nz}, policies({"int8"})).status().message(),
      AllOf(HasSubstr("KV policy int8"), HasSubstr("ND layout")));
}

// SOURCES.md of kjv-tiny: eval_a.txt, first 16,384 bytes, 32 windows of 512 from BOS.
TEST(SharedModelTest, KvsimPplReproducesTheKjvTinyReferenceFigures) {
  KVSIM_REQUIRE_DATA(testing::kKjvEvalText);
  auto weights = testing::load_kjv_tiny();
  ASSERT_TRUE(weights.is_ok()) << weights.status().message();
  const LlamaModel model(std::move(weights).value());
  auto tokenizer = Tokenizer::load((testing::kjv_tiny_dir() / "tokenizer.bin").string(), 259);
  ASSERT_TRUE(tokenizer.is_ok());
  std::vector<int> tokens = tokenizer->encode(testing::kjv_eval_text(), false, false, false);
  tokens.resize(16384);
  std::vector<std::pair<const char*, double>> expected = {
      {"full", 4.0418},       {"window:16", 4.2096},  {"window:32", 4.0960}, {"window:64", 4.0606},
      {"window:128", 4.0466}, {"window:256", 4.0422}, {"sink:4,12", 4.1934}, {"sink:4,28", 4.0817},
      {"sink:4,60", 4.0526},  {"sink:4,124", 4.0442}};
#ifdef KVSIM_SANITIZED
  // ~50 s per policy under AddressSanitizer: keep full and one sink run there.
  expected.erase(expected.begin() + 1, expected.begin() + 6);
  expected.resize(2);
#endif
  std::vector<KvPolicy> runs;
  for (size_t i = 1; i < expected.size(); ++i) runs.push_back(*parse_kv_policy(expected[i].first));
  auto report = measure_perplexity(model, tokens, {512, {}}, runs);
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  ASSERT_EQ(report->results.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(report->results[i].policy, expected[i].first);
    EXPECT_NEAR(report->results[i].ppl, expected[i].second, 5e-5) << expected[i].first;
  }
}

}  // namespace
}  // namespace kvsim::kernels
