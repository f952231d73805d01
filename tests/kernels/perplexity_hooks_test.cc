// PerplexityHooks: progress rises to 1 over (batches of windows) x (policies) steps without
// changing any result; a stop flag ends the measurement with a cancelled Status. And the
// shared inputs of `kvsim ppl` (kernels/ppl_job.h): policy expansion over budgets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <random>

#include "kernels/perplexity.h"
#include "kernels/llama_bundle.h"
#include "kernels/ppl_job.h"
#include "tests/kernels/tiny_llama.h"

namespace kvsim::kernels {
namespace {

std::vector<int> random_tokens(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(3, 261);
  std::vector<int> tokens(n);
  for (int& t : tokens) t = pick(rng);
  return tokens;
}

TEST(PerplexityHooksTest, ProgressReachesOneAndChangesNothing) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 40));
  // 40 windows of 8 tokens: two batches of at most 32 windows, 3 policies -> 6 steps.
  const std::vector<int> tokens = random_tokens(320, 5);
  auto policies = expand_ppl_policies({"window:4", "sink:1,3"}, {});
  ASSERT_TRUE(policies.is_ok());
  const PerplexityOptions options{8, {}};
  std::vector<double> reports;
  PerplexityHooks hooks;
  hooks.progress = [&reports](double f) { reports.push_back(f); };
  auto with_hooks = measure_perplexity(model, tokens, options, *policies, hooks);
  auto without = measure_perplexity(model, tokens, options, *policies);
  ASSERT_TRUE(with_hooks.is_ok() && without.is_ok());
  ASSERT_EQ(reports.size(), 6u);
  EXPECT_DOUBLE_EQ(reports.front(), 1.0 / 6.0);
  EXPECT_EQ(reports.back(), 1.0);
  for (size_t i = 0; i < with_hooks->results.size(); ++i) {
    EXPECT_EQ(with_hooks->results[i].ppl, without->results[i].ppl);
    EXPECT_EQ(with_hooks->results[i].kv_bytes, without->results[i].kv_bytes);
  }
}

TEST(PerplexityHooksTest, StopFlagCancels) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 41));
  const std::vector<int> tokens = random_tokens(320, 6);
  std::atomic<bool> stop{false};
  int steps = 0;
  PerplexityHooks hooks;
  hooks.progress = [&](double) {
    ++steps;
    stop = true;
  };
  hooks.stop = &stop;
  auto report = measure_perplexity(model, tokens, {8, {}}, {}, hooks);
  ASSERT_FALSE(report.is_ok());
  EXPECT_EQ(report.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(steps, 1);
}

TEST(PplJobTest, EvictingSpecsExpandOverBudgetsInOrder) {
  auto policies = expand_ppl_policies({"window:8", "int8", "sink:4,12"}, {16, 64});
  ASSERT_TRUE(policies.is_ok()) << policies.status().message();
  std::vector<std::string> names;
  for (const KvPolicy& p : *policies) names.push_back(p.name);
  EXPECT_THAT(names,
              ::testing::ElementsAre("window:16", "window:64", "int8", "sink:4,12", "sink:4,60"));
  EXPECT_THAT(expand_ppl_policies({"sink:4,12"}, {4}).status().message(),
              ::testing::HasSubstr("budget 4 leaves no window"));
  EXPECT_THAT(read_text_file("/nonexistent/eval.txt").status().message(),
              ::testing::HasSubstr("/nonexistent/eval.txt"));
}

}  // namespace
}  // namespace kvsim::kernels
