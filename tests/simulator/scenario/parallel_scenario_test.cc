// A scenario's parallel: section (simulator/scenario/scenario.h): read, checked against
// num_devices, and feeding the simulated engine's pool, which is one DP rank's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "simulator/scenario/scenario.h"
#include "simulator/simulation.h"

namespace kvsim::sim {
namespace {

using ::testing::HasSubstr;

// DeepSeek-V3 on eight H200s at EP 8 x DP 8.
const std::vector<std::string> kDeepSeekEp8Dp8 = {
    "model=deepseek-v3", "device=h200",      "num_devices=8",     "parallel.dp=8",
    "parallel.ep=8",     "cache.dtype=bf16", "weight_dtype=null", "cache.host_swap_gib=0",
};

TEST(ParallelScenario, SectionSetsTheLayoutAndTheEnginePool) {
  auto scenario = load_scenario("default", kDeepSeekEp8Dp8);
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  EXPECT_EQ(scenario->parallel.tp, 8u);
  EXPECT_EQ(scenario->parallel.dp, 8u);
  EXPECT_EQ(scenario->parallel.ep, 8u);
  EXPECT_EQ(scenario->parallel.pp, 1u);
  auto setup = prepare_simulation(*scenario);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  // The hand-worked weights of one rank (tests/core/engine/parallel_layout_test.cc) and the
  // whole latent per rank: 61 x 576 x 2 B = 70,272 B a token, 16 tokens a block.
  EXPECT_EQ(setup->capacity.weight_bytes, 100'840'710'832u);
  EXPECT_EQ(setup->capacity.kv_bytes_per_block, 70'272u * 16);
  EXPECT_EQ(setup->engine_budget->terms.front().bytes, 100'840'710'832u);
}

TEST(ParallelScenario, TpAloneSetsNumDevices) {
  auto scenario = load_scenario("default", {"num_devices=null", "parallel.tp=4"});
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  EXPECT_EQ(scenario->num_devices, 4u);
  EXPECT_EQ(scenario->parallel.tp, 4u);
  auto agree = load_scenario("default", {"num_devices=2", "parallel.tp=2"});
  ASSERT_TRUE(agree.is_ok()) << agree.status().message();
}

TEST(ParallelScenario, WithoutTheSectionTheLayoutIsTpOnly) {
  auto scenario = load_scenario("default", {"num_devices=2"});
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  EXPECT_TRUE(scenario->parallel.tp_only());
  EXPECT_EQ(scenario->parallel.tp, 2u);
}

TEST(ParallelScenario, BadSectionsNameTheField) {
  const std::pair<std::vector<std::string>, const char*> cases[] = {
      {{"num_devices=4", "parallel.tp=8"}, "parallel.tp 8 disagrees with num_devices 4"},
      {{"num_devices=8", "parallel.dp=3"}, "parallel.dp 3 must divide tp 8"},
      {{"num_devices=8", "parallel.ep=16"}, "parallel.ep 16 must divide tp 8"},
      {{"parallel.pp=0"}, "parallel.pp"},
      {{"parallel.dp=0"}, "parallel.dp"},
      {{"parallel.cp=2"}, "cp"},
  };
  for (const auto& [overrides, message] : cases) {
    auto scenario = load_scenario("default", overrides);
    ASSERT_FALSE(scenario.is_ok()) << message;
    EXPECT_THAT(scenario.status().message(), HasSubstr(message));
  }
}

// The simulated engine's cost model times one rank of the layout (simulator/cost/
// expert_parallel.h): a decode batch dispatches with DeepEP's low-latency kernels, and
// cost_model.expert_imbalance slows the expert GEMMs.
TEST(ParallelScenario, TheCostModelTimesOneRankOfTheLayout) {
  const auto explain = [](std::vector<std::string> overrides) {
    auto scenario = load_scenario("default", overrides);
    EXPECT_TRUE(scenario.is_ok()) << scenario.status().message();
    auto setup = prepare_simulation(*scenario);
    EXPECT_TRUE(setup.is_ok()) << setup.status().message();
    return explain_batches(*setup, {"decode:128x2000"});
  };
  auto uniform = explain(kDeepSeekEp8Dp8);
  ASSERT_TRUE(uniform.is_ok()) << uniform.status().message();
  const auto& ops = uniform->front().cost.operators;
  const auto dispatch = std::find_if(
      ops.begin(), ops.end(), [](const OperatorTime& op) { return op.name == "moe_dispatch"; });
  ASSERT_NE(dispatch, ops.end());
  EXPECT_EQ(dispatch->kernel, "low_latency");
  EXPECT_EQ(dispatch->count, 58u);
  std::vector<std::string> skewed = kDeepSeekEp8Dp8;
  skewed.push_back("cost_model.expert_imbalance=1.5");
  auto slower = explain(skewed);
  ASSERT_TRUE(slower.is_ok()) << slower.status().message();
  EXPECT_GT(slower->front().cost.total_s, uniform->front().cost.total_s);
  std::vector<std::string> roofline = kDeepSeekEp8Dp8;
  roofline.push_back("cost_model.kind=roofline");
  auto refused = explain(roofline);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("cost_model.kind (--kind) roofline"));
  std::vector<std::string> below_one = kDeepSeekEp8Dp8;
  below_one.push_back("cost_model.expert_imbalance=0.5");
  auto bad = load_scenario("default", below_one);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("expert_imbalance"));
}

// What needs the model is checked when the engine is set up, at the section.
TEST(ParallelScenario, ModelChecksNameTheFieldAtSetUp) {
  auto dense = load_scenario("default", {"num_devices=2", "parallel.ep=2", "device=h200"});
  ASSERT_TRUE(dense.is_ok()) << dense.status().message();
  auto setup = prepare_simulation(*dense);
  ASSERT_FALSE(setup.is_ok());
  EXPECT_THAT(setup.status().message(),
              HasSubstr("parallel.ep (--ep) 2 needs a mixture-of-experts"));
  EXPECT_THAT(setup.status().message(), HasSubstr("--set parallel.ep=2"));
  auto stages = load_scenario("default", {"parallel.pp=3", "device=h200"});
  ASSERT_TRUE(stages.is_ok()) << stages.status().message();
  auto staged = prepare_simulation(*stages);
  ASSERT_FALSE(staged.is_ok());
  EXPECT_THAT(staged.status().message(), HasSubstr("parallel.pp (--pp) 3 must divide the 32"));
}

}  // namespace
}  // namespace kvsim::sim
