// Speculative decoding in the scheduler (simulator/engine/speculation.h): the acceptance
// rates, the draws, and step by step what a verifying request schedules, reserves, keeps and
// gives back. Expected values are derived by hand from the rules in speculation.h.
#include "simulator/engine/speculation.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/simulator/engine/scheduler_table.h"

namespace kvsim::sim {
namespace {

using scheduler_table::Case;
using scheduler_table::expect_table;
using scheduler_table::Row;

TEST(Speculation, OneRateMeansIndependentPositions) {
  auto rates = acceptance_rates({0.5}, 3);
  ASSERT_TRUE(rates.is_ok());
  EXPECT_EQ(*rates, (std::vector<double>{0.5, 0.25, 0.125}));
  // E[tokens a step yields] = 1 + r_1 + ... + r_k = (1 - 0.5^4) / (1 - 0.5).
  EXPECT_DOUBLE_EQ(1 + (*rates)[0] + (*rates)[1] + (*rates)[2], 1.875);
}

TEST(Speculation, RatesThatCannotBeAreRefusedNamingTheField) {
  for (const auto& [stated, k] : std::vector<std::pair<std::vector<double>, uint32_t>>{
           {{0.5, 0.6}, 2}, {{1.2}, 2}, {{0.9, 0.8}, 3}, {{-0.1}, 1}}) {
    auto rates = acceptance_rates(stated, k);
    ASSERT_FALSE(rates.is_ok());
    EXPECT_NE(rates.status().message().find("speculative.acceptance"), std::string::npos);
  }
}

// i.i.d. acceptance p: E[1 + accepted] = (1 - p^(k+1)) / (1 - p); 10^5 draws of k = 4 drafts
// at p = 0.7 (sd of one draw ~1.2, of the mean ~0.004 on 2.77: 1% is ~7 sd).
TEST(Speculation, DrawsMeetTheExpectedTokensPerStep) {
  SpeculativeConfig config;
  config.num_speculative_tokens = 4;
  config.acceptance = *acceptance_rates({0.7}, 4);
  config.seed = 11;
  DraftAcceptance acceptance(config);
  double tokens = 0;
  const int steps = 100'000;
  for (int i = 0; i < steps; ++i) tokens += 1 + acceptance.accepted(4);
  const double expected = (1 - std::pow(0.7, 5)) / (1 - 0.7);
  EXPECT_NEAR(tokens / steps / expected, 1.0, 0.01);
}

// A request's own rate (a trace's acceptance column) replaces the scenario's rates.
TEST(Speculation, ARequestsOwnRateReplacesTheScenarios) {
  SpeculativeConfig config;
  config.num_speculative_tokens = 3;
  config.acceptance = {0.5, 0.25, 0.125};
  DraftAcceptance acceptance(config);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(acceptance.accepted(3, 1.0), 3u);
    EXPECT_EQ(acceptance.accepted(3, 0.0), 0u);
  }
}

SchedulerLimits speculative_limits(uint32_t budget, std::vector<double> rates) {
  SchedulerLimits l = scheduler_table::limits(budget, /*chunked_prefill=*/true,
                                              /*prefix_caching=*/false);
  l.speculative.method = SpeculativeMethod::kEagle3;
  l.speculative.num_speculative_tokens = static_cast<uint32_t>(rates.size());
  l.speculative.acceptance = std::move(rates);
  return l;
}

// k = 2, every draft accepted; 8 prompt + 6 output tokens, blocks of 4, 10 blocks.
//   it 0  prefill 8 (2 blocks; an admission reserves no lookahead). First token; drafts
//         min(2, 6 - 1 - 1) = 2.                                                free 8, 8
//   it 1  1 + 2 = 3 tokens; slots for 8 + 3 + 2 lookahead = 13: 4 blocks. Both accepted:
//         computed 11, generated 4; drafts min(2, 6 - 4 - 1) = 1.                free 6, 6
//   it 2  1 + 1 = 2 tokens (11 + 2 + 2 = 15: 4 blocks). Accepted: generated 6, done with
//         13 = P + O - 1 tokens of KV.                                           free 6, 10
TEST(Speculation, AcceptedDraftsAreOutputTokensAndTheLookaheadIsReserved) {
  Case c;
  c.limits = speculative_limits(16, {1.0, 1.0});
  c.num_blocks = 10;
  c.arrivals = {{0, 8, 6, {}}};
  expect_table(
      c,
      {
          {.batch = {{0, 8}}, .admitted = {0}, .first_tokens = {0}, .running = {0}, .free = {8, 8}},
          {.batch = {{0, 3}}, .running = {0}, .free = {6, 6}},
          {.batch = {{0, 2}}, .finished = {0}, .free = {6, 10}},
      });
}

// The same request, every draft rejected: each step yields its one token and gives the two
// draft slots back (computed 8 -> 9 -> 10 -> 11), the table keeps its 4 blocks; drafts fall
// to 1 (it 4: 6 - 4 - 1) and 0 (it 5: one output left).
//   it 1  3 tokens, 8 + 3 + 2 = 13 slots: 4 blocks.   it 2  9 + 3 + 2 = 14.   it 3  10 + 5 = 15.
//   it 4  2 tokens, 11 + 2 + 2 = 15.                   it 5  1 token, 12 + 1 + 2 = 15: done.
TEST(Speculation, RejectedDraftsGiveTheirSlotsBackAndKeepTheBlocks) {
  Case c;
  c.limits = speculative_limits(16, {0.0, 0.0});
  c.num_blocks = 10;
  c.arrivals = {{0, 8, 6, {}}};
  expect_table(
      c,
      {
          {.batch = {{0, 8}}, .admitted = {0}, .first_tokens = {0}, .running = {0}, .free = {8, 8}},
          {.batch = {{0, 3}}, .running = {0}, .free = {6, 6}},
          {.batch = {{0, 3}}, .running = {0}, .free = {6, 6}},
          {.batch = {{0, 3}}, .running = {0}, .free = {6, 6}},
          {.batch = {{0, 2}}, .running = {0}, .free = {6, 6}},
          {.batch = {{0, 1}}, .finished = {0}, .free = {6, 10}},
      });
}

// A budget too small for a request's drafts cuts them: with a budget of 2, r0's 1 + 2 become
// 1 + 1. A running request reserves the lookahead in its prefill chunks too (vLLM passes
// num_lookahead_tokens to every running request's allocation).
//   it 0  chunk 2 (an admission: no lookahead), 1 block.                        free 9
//   it 1  chunk 2, 4 + 2 lookahead = 6 slots: 2 blocks.                         free 8
//   it 2  chunk 2, 8 slots: 2 blocks.                                           free 8
//   it 3  last chunk, 10 slots: 3 blocks; first token, drafts 2.                free 7
//   it 4  drafts cut to 1: 2 tokens, 12 slots. Accepted: computed 10, generated 3; drafts
//         min(2, 6 - 3 - 1) = 2, cut again.                                      free 7
//   it 5  2 tokens, 14 slots: 4 blocks. generated 5, one output left: no drafts. free 6
//   it 6  1 token (15 slots): generated 6, done.                                 free 6, 10
TEST(Speculation, ABudgetTooSmallForTheDraftsCutsThem) {
  Case c;
  c.limits = speculative_limits(2, {1.0, 1.0});
  c.num_blocks = 10;
  c.arrivals = {{0, 8, 6, {}}};
  expect_table(c, {
                      {.batch = {{0, 2}}, .admitted = {0}, .running = {0}, .free = {9, 9}},
                      {.batch = {{0, 2}}, .running = {0}, .free = {8, 8}},
                      {.batch = {{0, 2}}, .running = {0}, .free = {8, 8}},
                      {.batch = {{0, 2}}, .first_tokens = {0}, .running = {0}, .free = {7, 7}},
                      {.batch = {{0, 2}}, .running = {0}, .free = {7, 7}},
                      {.batch = {{0, 2}}, .running = {0}, .free = {6, 6}},
                      {.batch = {{0, 1}}, .finished = {0}, .free = {6, 10}},
                  });
}

// A long run through the scheduler: one request of 250,001 output tokens at k = 4, p = 0.6
// verifies ~1.1 x 10^5 times; its tokens per verifying step are (1 - p^5) / (1 - p) within
// 1%, and it ends holding exactly P + O - 1 slots.
TEST(Speculation, TokensPerStepInSimulationMeetTheFormula) {
  const uint32_t prompt = 4;
  const uint32_t outputs = 250'001;
  KvCacheConfig config;
  config.num_blocks = 70'000;
  config.block_size = 4;
  auto cache = KvCacheCoordinator::create(config);
  ASSERT_TRUE(cache.is_ok());
  RequestTable requests;
  SchedulerLimits limits = speculative_limits(64, *acceptance_rates({0.6}, 4));
  Scheduler scheduler(limits, &*cache, &requests);
  SimRequest request;
  request.id = 7;
  request.prompt_tokens = prompt;
  request.output_tokens = outputs;
  cache->add_request(request.id, prompt, {});
  scheduler.add_waiting(requests.add(request));
  StepPlan plan;
  StepResult result;
  uint64_t verify_steps = 0;
  uint64_t verified_tokens = 0;  // output tokens of the steps that verified drafts
  while (!scheduler.idle()) {
    scheduler.schedule(&plan);
    ASSERT_TRUE(plan.has_work());
    if (requests.at(0).generated > 0) {  // running: its k lookahead slots are held
      const KvCacheManager& group = cache->group(0);
      ASSERT_GE(group.block_table(request.id).size() * 4, group.num_tokens(request.id) + 4);
    }
    scheduler.complete(plan, &result);
    if (result.verify_steps > 0) {
      ++verify_steps;
      verified_tokens += result.output_tokens;
    }
  }
  EXPECT_GT(verify_steps, 100'000u);
  const double expected = (1 - std::pow(0.6, 5)) / (1 - 0.6);
  EXPECT_NEAR(static_cast<double>(verified_tokens) / static_cast<double>(verify_steps) / expected,
              1.0, 0.01);
}

}  // namespace
}  // namespace kvsim::sim
