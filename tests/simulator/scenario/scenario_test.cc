#include "simulator/scenario/scenario.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/base/data_dir.h"
#include "core/config/presets.h"
#include "simulator/simulation.h"
#include "tests/test_data.h"

namespace kvsim::sim {
namespace {

TEST(Scenario, EveryEmbeddedScenarioLoadsAndPrepares) {
  const std::vector<std::string> names = preset_names(PresetKind::kScenario);
  for (const char* wanted :
       {"default", "mooncake-conversation", "ascend-310p-nz", "long-context-window"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), wanted), names.end()) << wanted;
  }
  for (const std::string& name : names) {
    auto scenario = load_scenario(name, {});
    ASSERT_TRUE(scenario.is_ok()) << name << ": " << scenario.status().message();
    EXPECT_FALSE(scenario->description.empty()) << name;
    auto setup = prepare_simulation(*scenario);
    ASSERT_TRUE(setup.is_ok()) << name << ": " << setup.status().message();
    EXPECT_GT(setup->engine.cache.num_blocks, 0u);
  }
}

TEST(Scenario, DottedOverridesReplaceAndCreateFields) {
  auto scenario =
      load_scenario("default", {"cache.block_size=512", "cache.num_blocks_override=400000",
                                "scheduler.preemption=swap", "seed=9",
                                "workload.synthetic.shared_prefix.probability=0"});
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  EXPECT_EQ(scenario->cache.block_size, 512u);
  EXPECT_EQ(scenario->cache.num_blocks_override, 400000u);
  EXPECT_EQ(scenario->scheduler.preemption, PreemptionMode::kSwap);
  EXPECT_EQ(scenario->seed, 9u);
  EXPECT_EQ(scenario->workload.synthetic.shared_prefix.probability, 0.0);
  const ConfigNode* node = scenario->tree.find_path("cache.block_size");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->text(), "512");
}

// The policies are typed values parsed once, by their one table: every eviction name loads
// (none turns prefix caching off, as prefix_caching: false does, in the engine it sets up),
// a retention carries its arguments, and an unknown name lists the valid ones.
TEST(Scenario, PoliciesLoadAsTypedValuesFromTheirOneTable) {
  for (const std::string& name : eviction_names()) {
    auto scenario = load_scenario("default", {"cache.eviction=" + name});
    ASSERT_TRUE(scenario.is_ok()) << name << ": " << scenario.status().message();
    EXPECT_EQ(eviction_name(scenario->cache.eviction), name);
    auto setup = prepare_simulation(*scenario);
    ASSERT_TRUE(setup.is_ok()) << name << ": " << setup.status().message();
    const bool caches = name != "none";
    EXPECT_EQ(scenario->cache.caches_prefixes(), caches) << name;
    EXPECT_EQ(setup->engine.scheduler.prefix_caching, caches) << name;
    EXPECT_EQ(setup->engine.cache.eviction, scenario->cache.eviction) << name;
  }
  auto off = load_scenario("default", {"cache.eviction=fifo", "cache.prefix_caching=false"});
  ASSERT_TRUE(off.is_ok());
  EXPECT_EQ(prepare_simulation(*off)->engine.cache.eviction, EvictionKind::kNone);

  auto sink = load_scenario("default", {"cache.retention=sink:4,60"});
  ASSERT_TRUE(sink.is_ok()) << sink.status().message();
  EXPECT_EQ(sink->cache.retention, (RetentionSpec{RetentionKind::kSink, 4, 60}));
  EXPECT_EQ(retention_text(sink->cache.retention), "sink:4,60");

  auto eviction = load_scenario("default", {"cache.eviction=lfru"});
  ASSERT_FALSE(eviction.is_ok());
  EXPECT_NE(eviction.status().message().find(
                "--set cache.eviction=lfru: field 'eviction': unknown eviction policy 'lfru'"),
            std::string::npos)
      << eviction.status().message();
  EXPECT_NE(eviction.status().message().find("valid: lru, lfu, fifo, none"), std::string::npos);
  auto retention = load_scenario("default", {"cache.retention=sinc:4,60"});
  ASSERT_FALSE(retention.is_ok());
  EXPECT_NE(retention.status().message().find("valid: full, window:W, sink:S,W, h2o:H,R"),
            std::string::npos)
      << retention.status().message();
  auto preemption = load_scenario("default", {"scheduler.preemption=swapp"});
  ASSERT_FALSE(preemption.is_ok());
  EXPECT_NE(preemption.status().message().find("valid: recompute, swap"), std::string::npos);
  EXPECT_EQ(preemption_mode_names(), (std::vector<std::string>{"recompute", "swap"}));
  for (const std::string& name : preemption_mode_names()) {
    EXPECT_EQ(preemption_mode_name(*parse_preemption_mode(name)), name);
  }
}

// A uniform sliding-window model keeps what vLLM keeps: window:W-1 for its window W, the rule
// a hybrid model's sliding group follows (sliding_window_retention; the table of freed blocks
// is tests/core/cache/sliding_window_conformance_test.cc). Mistral-7B: W = 4096.
TEST(Scenario, AUniformSlidingWindowModelKeepsWMinus1Keys) {
  auto scenario = load_scenario("default", {"model=mistral-7b"});
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  auto setup = prepare_simulation(*scenario);
  ASSERT_TRUE(setup.is_ok()) << setup.status().message();
  ASSERT_NE(setup->engine.cache.retention, nullptr);
  EXPECT_EQ(setup->engine.cache.retention->spec(),
            (RetentionSpec{RetentionKind::kWindow, 0, 4095}));
  EXPECT_EQ(setup->engine.scheduler.attention_window_tokens, 4095u);
}

TEST(Scenario, BadValuesNameWhereTheyCameFrom) {
  auto bad_set = load_scenario("default", {"cache.block_sise=32"});
  ASSERT_FALSE(bad_set.is_ok());
  EXPECT_NE(bad_set.status().message().find("block_sise"), std::string::npos);
  EXPECT_NE(bad_set.status().message().find("block_size"), std::string::npos);  // valid keys

  auto bad_value = load_scenario("default", {"scheduler.preemption=swapp"});
  ASSERT_FALSE(bad_value.is_ok());
  EXPECT_NE(bad_value.status().message().find("--set scheduler.preemption=swapp"),
            std::string::npos)
      << bad_value.status().message();

  EXPECT_FALSE(load_scenario("default", {"no-equals-sign"}).is_ok());
  EXPECT_FALSE(load_scenario("nonexistent-scenario", {}).is_ok());

  const std::string path = ::testing::TempDir() + "/scenario.yaml";
  std::ofstream(path) << "model: llama3-8b\ndevice: a100-80g\nworkload:\n  trace: t.csv\n"
                         "scheduler:\n  max_num_seqs: 0\n";
  auto from_file = load_scenario(path, {});
  ASSERT_FALSE(from_file.is_ok());
  EXPECT_NE(from_file.status().message().find("scenario.yaml:6:"), std::string::npos)
      << from_file.status().message();
}

TEST(Scenario, RelativePathsFollowTheFileAndDataPathsTheDataFolder) {
  const std::string dir = ::testing::TempDir() + "/scenarios";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/s.yaml") << "model: llama3-8b\ndevice: a100-80g\n"
                                    "workload: {trace: traces/x.csv}\n"
                                    "cost_model: {calibration: data:calibration.csv}\n";
  auto scenario = load_scenario(dir + "/s.yaml", {});
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  EXPECT_EQ(scenario->workload.trace,
            (std::filesystem::path(dir) / "traces/x.csv").lexically_normal().string());
  EXPECT_EQ(scenario->cost_model.calibration, (data_dir() / "calibration.csv").string());
  EXPECT_EQ(scenario->name, "s");
}

// The operator model is the default; a section written for the roofline (one of its five
// constants, no kind) keeps meaning the roofline, and an explicit kind wins.
TEST(Scenario, TheCostModelDefaultsToOperatorsAndRooflineConstantsKeepTheRoofline) {
  auto plain = load_scenario("default", {"cost_model=null"});
  ASSERT_TRUE(plain.is_ok()) << plain.status().message();
  EXPECT_EQ(plain->cost_model.kind, CostModelKind::kOperators);
  for (const char* key :
       {"compute_efficiency=0.5", "bandwidth_efficiency=0.7", "interconnect_efficiency=0.6",
        "iteration_overhead_s=0.002", "allreduce_latency_s=0.00002"}) {
    auto old = load_scenario("default", {"cost_model=null", std::string("cost_model.") + key});
    ASSERT_TRUE(old.is_ok()) << key << ": " << old.status().message();
    EXPECT_EQ(old->cost_model.kind, CostModelKind::kRoofline) << key;
  }
  auto explicit_kind =
      load_scenario("default", {"cost_model.kind=operators", "cost_model.compute_efficiency=0.5"});
  ASSERT_TRUE(explicit_kind.is_ok()) << explicit_kind.status().message();
  EXPECT_EQ(explicit_kind->cost_model.kind, CostModelKind::kOperators);
}

// The run's weight dtype: the scenario's weight_dtype, else the model's own 16-bit dtype (a
// config.json's torch_dtype), else fp16. A null weight_dtype is the same as none.
TEST(Scenario, TheWeightDtypeIsTheScenariosElseTheModelsOwn) {
  const std::string hf =
      "model=" + (testing::source_dir() / "presets/hf/meta-llama__Llama-3.1-8B.json").string();
  const auto weight_dtype = [](const std::vector<std::string>& overrides) {
    auto scenario = load_scenario("default", overrides);
    EXPECT_TRUE(scenario.is_ok()) << scenario.status().message();
    if (!scenario.is_ok()) return DType::kFp32;
    auto setup = prepare_simulation(*scenario);
    EXPECT_TRUE(setup.is_ok()) << setup.status().message();
    return setup.is_ok() ? setup->capacity_query.weight_dtype : DType::kFp32;
  };
  EXPECT_EQ(weight_dtype({}), DType::kFp16);                     // default.yaml says fp16
  EXPECT_EQ(weight_dtype({"weight_dtype=null"}), DType::kFp16);  // llama3-8b.yaml: no dtype
  EXPECT_EQ(weight_dtype({hf, "weight_dtype=null"}), DType::kBf16);
  EXPECT_EQ(weight_dtype({hf}), DType::kFp16);  // the scenario's fp16 wins
  EXPECT_EQ(weight_dtype({hf, "weight_dtype=fp8"}), DType::kFp8);
  auto scenario = load_scenario("default", {"weight_dtype=null"});
  ASSERT_TRUE(scenario.is_ok()) << scenario.status().message();
  EXPECT_EQ(scenario->weight_dtype, std::nullopt);
}

TEST(Scenario, WorkloadNeedsExactlyOneSource) {
  EXPECT_FALSE(load_scenario("default", {"workload.trace=x.csv"}).is_ok());
  EXPECT_FALSE(load_scenario("default", {"workload.synthetic=null"}).is_ok());
  EXPECT_TRUE(
      load_scenario("default", {"workload.synthetic=null", "workload.trace=x.csv"}).is_ok());
}

}  // namespace
}  // namespace kvsim::sim

namespace kvsim::sim {
namespace {

std::string speculative_error(const std::vector<std::string>& overrides) {
  auto scenario = load_scenario("eagle3-llama3.1-8b", overrides);
  if (!scenario.is_ok()) return scenario.status().message();
  auto setup = prepare_simulation(*scenario);
  return setup.is_ok() ? "" : setup.status().message();
}

// Bad speculative sections are refused naming the field (and the valid names where there are
// some); the section set to null is the plain run.
TEST(Scenario, BadSpeculativeSectionsNameTheField) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"speculative.num_speculative_tokens=0"}, "num_speculative_tokens"},
      {{"speculative.method=medusa"}, "draft_model"},  // the valid names are listed
      {{"speculative.method=draft_model"}, "needs 'draft_model'"},
      {{"speculative.draft_model=llama3-8b"}, "has no draft model"},
      {{"speculative.acceptance=1.5"}, "speculative.acceptance"},
      {{"scheduler.policy=sarathi"}, "policy vllm only"},
      {{"cluster.replicas=2"}, "cluster run"},
      {{"model=gemma-3-27b-it"}, "hybrid"},
  };
  for (const auto& [overrides, wanted] : cases) {
    const std::string message = speculative_error(overrides);
    EXPECT_NE(message.find(wanted), std::string::npos) << overrides[0] << ": " << message;
  }
  EXPECT_EQ(speculative_error({"speculative=null"}), "");
  EXPECT_EQ(speculative_error({}), "");
}

// The drafter's memory: EAGLE's head is one more layer of weights and KV, so the pool of the
// same device holds 32/33 of the blocks less one layer's weights (llama-3.1-8b: (8.03 B -
// 1.05 B embedding and head) / 32 = 218 M parameters, 436 MB: ~200 blocks of 2.06 MiB).
TEST(Scenario, AnEagleHeadTakesOneLayerOfWeightsAndKvFromThePool) {
  auto with = load_scenario("eagle3-llama3.1-8b", {});
  auto without = load_scenario("eagle3-llama3.1-8b", {"speculative=null"});
  ASSERT_TRUE(with.is_ok() && without.is_ok());
  auto a = prepare_simulation(*with);
  auto b = prepare_simulation(*without);
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  EXPECT_EQ(a->capacity.kv_bytes_per_block * 32, b->capacity.kv_bytes_per_block * 33);
  EXPECT_LT(a->engine.cache.num_blocks, b->engine.cache.num_blocks * 32 / 33);
  EXPECT_GT(a->engine.cache.num_blocks, b->engine.cache.num_blocks * 32 / 33 - 230);
  EXPECT_EQ(a->engine.scheduler.speculative.lookahead_tokens(), 3u);
  ASSERT_TRUE(a->draft_model.has_value());
  EXPECT_EQ(a->draft_model->num_layers, 1u);
}

}  // namespace
}  // namespace kvsim::sim

namespace kvsim::sim {
namespace {

// DeepSeek-V3's MTP module on its fp8 checkpoint: one more MLA layer of KV (62 / 61) and an
// fp8-quantized layer of weights, and the head's cost model is one MoE layer of the target.
TEST(Scenario, AnMtpHeadOnAQuantizedMoeIsOneMoreQuantizedLayer) {
  const std::vector<std::string> deepseek = {
      "model=deepseek-v3",      "device=h200",
      "num_devices=8",          "weight_dtype=fp8",
      "speculative.method=mtp", "speculative.num_speculative_tokens=1"};
  auto with = load_scenario("eagle3-llama3.1-8b", deepseek);
  std::vector<std::string> plain = deepseek;
  plain.resize(4);
  plain.push_back("speculative=null");
  auto without = load_scenario("eagle3-llama3.1-8b", plain);
  ASSERT_TRUE(with.is_ok() && without.is_ok());
  auto a = prepare_simulation(*with);
  auto b = prepare_simulation(*without);
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  EXPECT_EQ(a->capacity.kv_bytes_per_block * 61, b->capacity.kv_bytes_per_block * 62);
  EXPECT_LT(*a->capacity.weight_bytes, *b->capacity.weight_bytes * 63 / 61);
  EXPECT_GT(*a->capacity.weight_bytes, *b->capacity.weight_bytes);
  ASSERT_TRUE(a->draft_model.has_value());
  EXPECT_EQ(a->draft_model->num_dense_layers, 0u);
  EXPECT_EQ(a->cost_capacity().kv_bytes_per_block, b->capacity.kv_bytes_per_block);
}

}  // namespace
}  // namespace kvsim::sim
