// The benchmark-shaped workload keys of a scenario: staged rates and their per-stage report,
// a client's max_concurrency, and scheduler.max_model_len.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "simulator/output/stage_metrics.h"
#include "simulator/simulation.h"
#include "tests/simulator/run_scenario.h"

namespace kvsim::sim {
namespace {

std::string write_yaml(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::path(::testing::TempDir()) / (name + ".yaml");
  std::ofstream(path) << text;
  return path.string();
}

constexpr char kStaged[] =
    "model: llama3-8b\n"
    "device: h100-sxm\n"
    "workload:\n"
    "  synthetic:\n"
    "    arrival: constant\n"
    "    stages: [{rate: 5, duration_s: 10}, {rate: 10, duration_s: 5}]\n"
    "    prompt_tokens: 566\n"
    "    output_tokens: 50\n";

Summary run(const std::string& path, const std::vector<std::string>& overrides) {
  return testing::run_scenario(path, overrides);
}

TEST(BenchmarkScenario, StagesAreReportedEachOnItsOwn) {
  const Summary s = run(write_yaml("staged", kStaged), {});
  ASSERT_EQ(s.requests_completed, 100u);
  ASSERT_EQ(s.stages.size(), 2u);
  EXPECT_EQ(s.stages[0].completed, 50u);
  EXPECT_EQ(s.stages[1].completed, 50u);
  EXPECT_EQ(s.stages[1].start_s, 10.0);
  EXPECT_EQ(s.stages[1].end_s, 15.0);
  EXPECT_EQ(s.stages[1].rate_per_s, 10.0);
  // Both stages are far below saturation: each stage's output rate is its offered one, about
  // rate x 50 tokens (less the drain after its last arrival).
  EXPECT_NEAR(s.stages[0].output_tokens_per_s, 250.0, 0.05 * 250.0);
  EXPECT_NEAR(s.stages[1].output_tokens_per_s, 500.0, 0.1 * 500.0);
  const auto json = summary_to_json(s, false);
  ASSERT_TRUE(json.contains("stages"));
  EXPECT_EQ(json["stages"][1]["completed"], 50);
  EXPECT_NE(stages_text(s.stages).find("stage 1  10.00/s over 10.0-15.0 s: 50 done"),
            std::string::npos)
      << stages_text(s.stages);
}

TEST(BenchmarkScenario, AnUnstagedRunHasNoStagesInItsSummary) {
  const Summary s = run("default", {"workload.synthetic.num_requests=20"});
  EXPECT_TRUE(s.stages.empty());
  EXPECT_FALSE(summary_to_json(s, false).contains("stages"));
}

TEST(BenchmarkScenario, ARateOverrideOfStagesIsRefusedWhereItWasGiven) {
  const auto path = write_yaml("staged_rate", std::string(kStaged) + "  rate: 3\n");
  auto scenario = load_scenario(path, {});
  ASSERT_FALSE(scenario.is_ok());
  EXPECT_NE(scenario.status().message().find("staged_rate.yaml:9:"), std::string::npos)
      << scenario.status().message();
  EXPECT_NE(scenario.status().message().find("no single rate"), std::string::npos);
  auto bad_stage =
      load_scenario(path, {"workload.synthetic.stages=[{rate: 5}]", "workload.rate=0"});
  ASSERT_FALSE(bad_stage.is_ok());
  EXPECT_NE(bad_stage.status().message().find("duration_s"), std::string::npos)
      << bad_stage.status().message();
}

TEST(BenchmarkScenario, MaxModelLenLimitsTheEngineAndReachesItsMemoryRules) {
  auto scenario = load_scenario("default", {"scheduler.max_model_len=4096"});
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  auto setup = prepare_simulation(*scenario);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  EXPECT_EQ(setup->engine.max_model_len, 4096u);
  EXPECT_EQ(setup->engine_query.max_model_len, 4096u);
  auto plain = prepare_simulation(*load_scenario("default", {}));
  ASSERT_TRUE(plain.is_ok());
  EXPECT_EQ(plain->engine.max_model_len, plain->model.max_position_embeddings);
}

}  // namespace
}  // namespace kvsim::sim
