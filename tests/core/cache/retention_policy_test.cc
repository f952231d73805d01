#include "core/cache/retention_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kvsim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<RetentionPolicy> policy(std::string_view text) {
  auto spec = parse_retention(text);
  EXPECT_TRUE(spec.is_ok()) << spec.status().message();
  return spec.is_ok() ? make_retention_policy(*spec) : nullptr;
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

// The one table: every form parses into a typed spec carrying its arguments, prints back, and
// builds a policy that reports the same spec; an unknown name lists the valid forms.
TEST(RetentionPolicyTest, EveryFormParsesIntoATypedSpecAndPrintsBack) {
  EXPECT_THAT(retention_forms(), ElementsAre("full", "window:W", "sink:S,W", "h2o:H,R"));
  const std::pair<const char*, RetentionSpec> cases[] = {
      {"full", {RetentionKind::kFull, 0, 0}},
      {"window:64", {RetentionKind::kWindow, 0, 64}},
      {"sink:4,60", {RetentionKind::kSink, 4, 60}},
      {"h2o:32,16", {RetentionKind::kH2o, 32, 16}},
  };
  for (const auto& [text, expected] : cases) {
    const auto spec = parse_retention(text);
    ASSERT_TRUE(spec.is_ok()) << text << ": " << spec.status().message();
    EXPECT_EQ(*spec, expected) << text;
    EXPECT_EQ(retention_text(*spec), text);
    EXPECT_EQ(make_retention_policy(*spec)->spec(), expected) << text;
    EXPECT_EQ(make_retention_policy(*spec)->name(), text);
    EXPECT_TRUE(is_retention_name(retention_kind_name(expected.kind)));
  }
  EXPECT_FALSE(is_retention_name("int8"));
}

TEST(RetentionPolicyTest, BadSpecsExplainThemselves) {
  auto unknown = parse_retention("windw:3");
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_THAT(unknown.status().message(),
              HasSubstr("unknown retention policy 'windw:3' (did you mean 'window:W'?); valid: "
                        "full, window:W, sink:S,W, h2o:H,R"));
  const std::pair<const char*, const char*> bad[] = {
      {"window:0", "retention policy 'window:0': expected window:W with positive integers"},
      {"sink:4", "retention policy 'sink:4': expected sink:S,W with positive integers"},
      {"window:x", "expected window:W"},
      {"window", "retention policy 'window': expected window:W"},
      {"window:2,3", "expected window:W"},
      {"h2o:1,2,3", "expected h2o:H,R"},
      {"window:1099511627777", "expected window:W"},  // 2^40 + 1
      {"full:3", "retention policy 'full:3': expected full"},
  };
  for (const auto& [text, message] : bad) {
    const auto spec = parse_retention(text);
    ASSERT_FALSE(spec.is_ok()) << text;
    EXPECT_THAT(spec.status().message(), HasSubstr(message)) << text;
  }
}

}  // namespace
}  // namespace kvsim
