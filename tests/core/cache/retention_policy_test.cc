#include "core/cache/retention_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kvsim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<RetentionPolicy> policy(std::string_view spec) {
  auto made = make_retention_policy(spec);
  EXPECT_TRUE(made.is_ok()) << made.status().message();
  return made.is_ok() ? std::move(made).value() : nullptr;
}

TEST(RetentionPolicyTest, FullWindowSinkOnAPrefix) {
  EXPECT_EQ(policy("full")->select_prefix(5).size(), 5u);
  EXPECT_FALSE(policy("full")->budget_tokens().has_value());
  EXPECT_THAT(policy("window:3")->select_prefix(6), ElementsAre(3, 4, 5));
  EXPECT_THAT(policy("window:8")->select_prefix(3), ElementsAre(0, 1, 2));
  EXPECT_THAT(policy("sink:2,3")->select_prefix(8), ElementsAre(0, 1, 5, 6, 7));
  EXPECT_EQ(*policy("sink:2,3")->budget_tokens(), 5u);
}

TEST(RetentionPolicyTest, IncrementalWindowNeverBringsBackEvicted) {
  const auto sink = policy("sink:1,2");
  std::vector<uint64_t> keep;
  const std::vector<uint64_t> next = {0, 4, 5, 6};  // 1..3 were evicted earlier
  sink->select(next, {}, &keep);
  EXPECT_THAT(keep, ElementsAre(0, 5, 6));
}

TEST(RetentionPolicyTest, HeavyHittersByScoreAndBudgetWithoutScores) {
  const auto h2o = policy("h2o:2,2");
  EXPECT_TRUE(h2o->uses_scores());
  const std::vector<uint64_t> positions = {0, 1, 2, 3, 4, 5, 6};
  const std::vector<float> scores = {0.1f, 0.9f, 0.2f, 0.8f, 0.05f, 0.0f, 0.0f};
  std::vector<uint64_t> keep;
  h2o->select(positions, scores, &keep);
  EXPECT_THAT(keep, ElementsAre(1, 3, 5, 6));
  EXPECT_THAT(h2o->select_prefix(7), ElementsAre(0, 1, 5, 6));
}

TEST(RetentionPolicyTest, NamesRoundTripAndBadSpecsExplainThemselves) {
  for (const char* spec : {"full", "window:64", "sink:4,60", "h2o:32,32"}) {
    EXPECT_EQ(policy(spec)->name(), spec);
  }
  auto bad = make_retention_policy("windw:3");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("valid: full, window:W, sink:S,W, h2o:H,R"));
  EXPECT_FALSE(make_retention_policy("window:0").is_ok());
  EXPECT_FALSE(make_retention_policy("sink:4").is_ok());
  EXPECT_FALSE(make_retention_policy("window:x").is_ok());
  EXPECT_FALSE(make_retention_policy("full:3").is_ok());
}

}  // namespace
}  // namespace kvsim
