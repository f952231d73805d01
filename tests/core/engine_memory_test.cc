// Each engine's KV budget on a hand-computed example (core/engine_memory.h), and the start-up
// log parser's errors on empty and foreign text (the real logs: tests/cli/calibrate_cli_test.cc).
#include "core/engine_memory.h"

#include <gtest/gtest.h>

#include "core/capacity_plan.h"
#include "core/presets.h"
#include "core/startup_log.h"
#include "core/units.h"

namespace kvsim {
namespace {

EngineBudget budget(const ModelSpec& model, const DeviceSpec& device, const EngineQuery& query) {
  auto result = compute_engine_budget(model, device, CapacityQuery{}, query);
  EXPECT_TRUE(result.is_ok()) << result.status().message();
  return result.is_ok() ? *result : EngineBudget{};
}

uint64_t term_bytes(const EngineBudget& b, const std::string& name) {
  for (const SetAsideTerm& term : b.terms) {
    if (term.name == name) return term.bytes;
  }
  ADD_FAILURE() << "no term " << name;
  return 0;
}

// Llama-3-8B fp16 on an A100-80GB (not a "large" device for vLLM >= 0.9: 2048 batched tokens,
// 256 sequences), vLLM 0.11.0.
constexpr uint64_t kLlama8bWeights = 8'030'261'248ull * 2;
// Sampler peak: 2048 x 4096 hidden x 2 B + 256 seqs x 128,256 vocab x (2 + 26) B; the forward
// (2048 x (3 x 4096 + 3 x 14336) x 2 B = 226,492,416 B) is smaller.
constexpr uint64_t kLlama8bActivation = 2048ull * 4096 * 2 + 256ull * 128'256 * 28;

TEST(EngineMemoryTest, VllmV1SubtractsWeightsActivationAndNonTorch) {
  EngineQuery query;
  query.version = EngineVersion{0, 11, 0};
  const EngineBudget b = budget(*load_model("llama3-8b"), *load_device("a100-80g"), query);
  const uint64_t requested = static_cast<uint64_t>(80.0L * kGiB * 0.9L);
  EXPECT_EQ(b.requested_bytes, requested);
  EXPECT_EQ(b.max_num_batched_tokens, 2048u);
  EXPECT_EQ(b.max_num_seqs, 256u);
  EXPECT_EQ(term_bytes(b, "weights"), kLlama8bWeights);
  EXPECT_EQ(term_bytes(b, "activation peak"), kLlama8bActivation);
  EXPECT_EQ(term_bytes(b, "non-torch memory"), 60 * kGiB / 1000);
  EXPECT_FALSE(b.graphs_subtracted);  // 0.11: graphs come out of the 1 - utilization slack
  EXPECT_EQ(b.kv_budget_bytes, requested - kLlama8bWeights - kLlama8bActivation - 60 * kGiB / 1000);
}

TEST(EngineMemoryTest, VllmActivationGrowsWithBatchedTokens) {
  const ModelSpec model = *load_model("llama3-8b");
  const DeviceSpec device = *load_device("a100-80g");
  EngineQuery query;
  query.version = EngineVersion{0, 11, 0};
  query.max_num_batched_tokens = 32768;  // the forward now dominates the sampler
  const EngineBudget b = budget(model, device, query);
  EXPECT_EQ(term_bytes(b, "activation peak"), 32768ull * (3 * 4096 + 3 * 14336) * 2);
}

TEST(EngineMemoryTest, VllmFrom021SubtractsGraphsAtUtilization092) {
  EngineQuery query;
  query.version = EngineVersion{0, 21, 0};
  const EngineBudget b = budget(*load_model("llama3-8b"), *load_device("a100-80g"), query);
  EXPECT_DOUBLE_EQ(b.memory_utilization, 0.92);
  EXPECT_TRUE(b.graphs_subtracted);
  EXPECT_EQ(term_bytes(b, "CUDA graphs"), 32 * 18 * kMiB);
}

TEST(EngineMemoryTest, VllmV0ProfilesMaxModelLenWithoutChunkedPrefill) {
  EngineQuery query;
  query.kind = EngineKind::kVllmV0;
  query.version = EngineVersion{0, 6, 3};
  query.max_model_len = 8192;
  const EngineBudget b = budget(*load_model("llama3-8b"), *load_device("a100-80g"), query);
  EXPECT_FALSE(b.chunked_prefill);
  EXPECT_EQ(b.max_num_batched_tokens, 8192u);
  // 256 sampled rows x 128,256 logits x 38 B (V0's sampler) + the 8192 x 4096 hidden states
  // outweigh the forward's 8192 x 110,592 B.
  EXPECT_EQ(term_bytes(b, "activation peak"), 8192ull * 4096 * 2 + 256ull * 128'256 * 38);
}

TEST(EngineMemoryTest, Ascend310pHalvesOnlyFrom018) {
  const ModelSpec model = *load_model("llama-7b");
  const DeviceSpec device = *load_device("ascend-310p3");
  EngineQuery query;
  query.kind = EngineKind::kVllmAscend;
  query.version = EngineVersion{0, 17, 0};
  const EngineBudget before = budget(model, device, query);
  query.version = EngineVersion{0, 18, 0};
  const EngineBudget after = budget(model, device, query);
  EXPECT_EQ(before.block_size, 128u);
  EXPECT_DOUBLE_EQ(before.kv_factor, 1.0);
  EXPECT_DOUBLE_EQ(after.kv_factor, 0.5);
  EXPECT_EQ(before.set_aside_bytes, after.set_aside_bytes);
  EXPECT_EQ(after.kv_budget_bytes, (before.requested_bytes - before.set_aside_bytes) / 2);
}

TEST(EngineMemoryTest, SglangTakesItsFractionOfTheFreeMemoryLessWeights) {
  EngineQuery query;
  query.kind = EngineKind::kSglang;
  query.memory_utilization = 0.8;
  const EngineBudget b = budget(*load_model("llama3-8b"), *load_device("a100-80g"), query);
  const uint64_t free_at_start = 80 * kGiB - 290 * kGiB / 1000;  // less the CUDA context
  const uint64_t requested = static_cast<uint64_t>(static_cast<long double>(free_at_start) * 0.8L);
  EXPECT_EQ(b.requested_bytes, requested);
  EXPECT_EQ(b.block_size, 1u);
  EXPECT_EQ(b.kv_budget_bytes, requested - kLlama8bWeights);
}

TEST(EngineMemoryTest, WeightsLargerThanMemoryGiveZeroBlocks) {
  const DeviceSpec device = *load_device("ascend-310p3");
  auto plan = plan_capacity(*load_model("llama3-70b"), &device, {}, EngineQuery{});
  ASSERT_TRUE(plan.is_ok()) << plan.status().message();
  ASSERT_TRUE(plan->engine.has_value());
  EXPECT_TRUE(plan->engine->budget_negative);
  EXPECT_EQ(*plan->capacity.num_blocks, 0u);
  EXPECT_EQ(*plan->capacity.num_usable_blocks, 0u);
  EXPECT_EQ(*plan->capacity.max_batch_at_seq_len, 0u);
}

TEST(EngineMemoryTest, UnknownEngineListsTheValidNames) {
  auto kind = parse_engine_kind("tgi");
  ASSERT_FALSE(kind.is_ok());
  EXPECT_NE(kind.status().message().find("vllm-ascend"), std::string::npos);
}

TEST(StartupLogTest, EmptyAndForeignLogsAreErrorsNamingTheFile) {
  auto empty = parse_startup_log("", "run.log");
  ASSERT_FALSE(empty.is_ok());
  EXPECT_NE(empty.status().message().find("run.log"), std::string::npos);
  auto foreign = parse_startup_log("Compiling foo.c\nlinking\n", "build.log");
  ASSERT_FALSE(foreign.is_ok());
  EXPECT_NE(foreign.status().message().find("build.log"), std::string::npos);
}

TEST(StartupLogTest, ReadsTheV1KvCacheLine) {
  auto log = parse_startup_log(
      "INFO 10-07 [gpu_worker.py:276] Available KV cache memory: 35.34 GiB\n"
      "INFO 10-07 [kv_cache_utils.py:1087] GPU KV cache size: 463,136 tokens\n",
      "v1.log");
  ASSERT_TRUE(log.is_ok()) << log.status().message();
  ASSERT_TRUE(log->kv_tokens.has_value());
  EXPECT_EQ(log->kv_tokens->value, 463'136);
  EXPECT_EQ(log->kv_tokens->line, 2);
  ASSERT_TRUE(log->available_kv_bytes.has_value());
  EXPECT_NEAR(log->available_kv_bytes->value, 35.34 * kBytesPerGiB, 0.01 * kBytesPerGiB);
}

}  // namespace
}  // namespace kvsim
