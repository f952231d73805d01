// Workloads as benchmarks send them (simulator/workload/synthetic_workload.h): every request
// at t = 0, staged rates, a prompt set sent again and again, and a two-level shared prefix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/base/units.h"
#include "simulator/engine/request_hashes.h"
#include "simulator/workload/synthetic_workload.h"

namespace kvsim::sim {
namespace {

std::vector<RequestSpec> generate(const SyntheticConfig& config, uint64_t seed = 7) {
  auto source = SyntheticSource::create(config, seed, 1.0);
  EXPECT_TRUE(source.is_ok()) << source.status().message();
  std::vector<RequestSpec> out;
  RequestSpec r;
  while (*(*source)->next(&r)) out.push_back(r);
  return out;
}

LengthConfig length(LengthKind kind, uint32_t value, uint32_t min = 1, uint32_t max = 1 << 20) {
  LengthConfig config;
  config.kind = kind;
  config.value = value;
  config.min = min;
  config.max = max;
  return config;
}

SyntheticConfig uniform_lengths(SyntheticConfig config) {
  config.prompt_tokens = length(LengthKind::kUniform, 0, 64, 2048);
  config.output_tokens = length(LengthKind::kUniform, 0, 8, 256);
  return config;
}

TEST(BenchmarkWorkload, BurstSendsEveryRequestAtZero) {
  SyntheticConfig config;
  config.arrival = ArrivalProcess::kBurst;
  config.num_requests = 500;
  config.rate_per_s = 0;  // a burst needs no rate
  const auto requests = generate(config);
  ASSERT_EQ(requests.size(), 500u);
  for (const RequestSpec& r : requests) EXPECT_EQ(r.arrival_ns, 0);
  EXPECT_FALSE(has_single_rate(config));
}

TEST(BenchmarkWorkload, ConstantStagesSendRateTimesDurationEachFromItsStart) {
  SyntheticConfig config;
  config.arrival = ArrivalProcess::kConstant;
  config.num_requests = uint64_t{1} << 40;
  config.stages = {{5.0, 10.0}, {10.0, 5.0}, {2.0, 3.0}};
  const auto requests = generate(config);
  std::map<int, int> per_stage;
  for (const RequestSpec& r : requests) {
    per_stage[r.arrival_ns < 10 * kNsPerS ? 0 : r.arrival_ns < 15 * kNsPerS ? 1 : 2]++;
  }
  EXPECT_EQ(per_stage[0], 50);
  EXPECT_EQ(per_stage[1], 50);
  EXPECT_EQ(per_stage[2], 6);
  EXPECT_EQ(requests[50].arrival_ns, 10 * kNsPerS);  // the second stage's first, at its start
  EXPECT_EQ(requests[51].arrival_ns - requests[50].arrival_ns, kNsPerS / 10);
  EXPECT_EQ(requests[100].arrival_ns, 15 * kNsPerS);
  EXPECT_LT(requests.back().arrival_ns, 18 * kNsPerS);
  auto source = SyntheticSource::create(config, 1, 1.0);
  EXPECT_FALSE((*source)->expected_count().has_value());  // ends with time, not a count
}

TEST(BenchmarkWorkload, PoissonStagesKeepEachStagesRate) {
  SyntheticConfig config;
  config.num_requests = uint64_t{1} << 40;
  config.stages = {{20.0, 500.0}, {80.0, 500.0}};
  const auto requests = generate(config);
  const auto second = std::count_if(requests.begin(), requests.end(), [](const RequestSpec& r) {
    return r.arrival_ns >= 500 * kNsPerS;
  });
  const auto first = static_cast<int64_t>(requests.size()) - second;
  // Poisson counts: mean rate x duration, standard deviation its square root; 5 sigma.
  EXPECT_NEAR(static_cast<double>(first), 10000.0, 5 * std::sqrt(10000.0));
  EXPECT_NEAR(static_cast<double>(second), 40000.0, 5 * std::sqrt(40000.0));
  EXPECT_LT(requests.back().arrival_ns, 1000 * kNsPerS);
}

TEST(BenchmarkWorkload, NumRequestsCapsStages) {
  SyntheticConfig config;
  config.arrival = ArrivalProcess::kConstant;
  config.num_requests = 30;
  config.stages = {{5.0, 10.0}, {10.0, 5.0}};
  EXPECT_EQ(generate(config).size(), 30u);
}

TEST(BenchmarkWorkload, APromptSetIsSentInTurnWithTheSameContent) {
  SyntheticConfig config = uniform_lengths({});
  config.num_requests = 30;
  config.rate_per_s = 10;
  config.prompt_set = 4;
  const auto requests = generate(config);
  for (const RequestSpec& r : requests) {
    const RequestSpec& first = requests[r.id % 4];
    ASSERT_TRUE(r.content_id.has_value());
    EXPECT_EQ(*r.content_id, r.id % 4);
    EXPECT_EQ(r.prompt_tokens, first.prompt_tokens);
    EXPECT_EQ(r.output_tokens, first.output_tokens);
  }
  // A repeat has every full block of its first sending; different prompts share none.
  std::vector<BlockHash> a, b, c;
  prompt_block_hashes(requests[1], 16, &a);
  prompt_block_hashes(requests[5], 16, &b);
  prompt_block_hashes(requests[2], 16, &c);
  EXPECT_EQ(a, b);
  ASSERT_FALSE(a.empty());
  EXPECT_NE(a.front(), c.front());
}

TEST(BenchmarkWorkload, RandomOrderPicksFromTheSetAndRepeatsKeepTheirLengths) {
  SyntheticConfig config = uniform_lengths({});
  config.num_requests = 400;
  config.rate_per_s = 10;
  config.prompt_set = 5;
  config.prompt_order = PromptOrder::kRandom;
  std::map<uint64_t, uint32_t> length_of;
  std::map<uint64_t, int> count_of;
  for (const RequestSpec& r : generate(config)) {
    ASSERT_TRUE(r.content_id.has_value());
    ASSERT_LT(*r.content_id, 5u);
    const auto [it, added] = length_of.emplace(*r.content_id, r.prompt_tokens);
    if (!added) {
      EXPECT_EQ(it->second, r.prompt_tokens);
    }
    ++count_of[*r.content_id];
  }
  EXPECT_EQ(count_of.size(), 5u);
  for (const auto& [id, count] : count_of) EXPECT_GT(count, 40) << id;  // about 80 each
}

TEST(BenchmarkWorkload, TwoLevelPrefixSharesTheSystemPromptThenTheRepeatedQuestion) {
  // inference-perf's shared_prefix: 2 system prompts of 100 tokens, 3 questions each.
  SyntheticConfig config;
  config.num_requests = 60;
  config.rate_per_s = 10;
  config.prompt_tokens = length(LengthKind::kFixed, 566);
  config.output_tokens = length(LengthKind::kFixed, 50);
  config.shared_prefix = {2, 100, 1.0};
  config.prompt_set = 6;
  const auto requests = generate(config);
  std::vector<BlockHash> x, y;
  for (const RequestSpec& a : requests) {
    for (const RequestSpec& b : requests) {
      prompt_block_hashes(a, 16, &x);
      prompt_block_hashes(b, 16, &y);
      size_t shared = 0;
      while (shared < x.size() && x[shared] == y[shared]) ++shared;
      if (a.content_id == b.content_id) {
        EXPECT_EQ(shared, x.size());  // the same question after the same system prompt
      } else if (a.prefix_group == b.prefix_group) {
        EXPECT_EQ(shared, 100u / 16);  // the system prompt's full blocks only
      } else {
        EXPECT_EQ(shared, 0u);
      }
    }
  }
}

TEST(BenchmarkWorkload, InvalidStagesAndBurstsAreRejected) {
  SyntheticConfig config;
  config.stages = {{5.0, 0.0}};
  EXPECT_NE(validate_synthetic_config(config).message().find("stages[0].duration_s"),
            std::string::npos);
  config.stages = {{5.0, 10.0}};
  config.arrival = ArrivalProcess::kBurst;
  EXPECT_NE(validate_synthetic_config(config).message().find("burst"), std::string::npos);
  config = {};
  config.rate_per_s = 0;
  EXPECT_FALSE(validate_synthetic_config(config).is_ok());  // poisson needs its rate
}

}  // namespace
}  // namespace kvsim::sim
