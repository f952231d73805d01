// Each engine's KV budget on a hand-computed example (core/engine/engine_memory.h), and the
// start-up log parser's errors on empty and foreign text (the real logs:
// tests/cli/calibrate_cli_test.cc).
#include "core/engine/engine_memory.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/base/units.h"
#include "core/config/yaml_io.h"
#include "core/engine/capacity_plan.h"
#include "core/engine/engine_config.h"
#include "core/engine/startup_log.h"
#include "core/model/load_spec.h"

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
// Sampler peak (the first model runner's sort-based sampler, 38 B per logit): 2048 x 4096
// hidden x 2 B + 256 seqs x 128,256 vocab x 38 B; the forward (2048 x (3 x 4096 + 3 x 14336)
// x 2 B = 226,492,416 B) is smaller.
constexpr uint64_t kLlama8bActivation = 2048ull * 4096 * 2 + 256ull * 128'256 * 38;

TEST(EngineMemoryTest, VllmV1SubtractsWeightsActivationAndNonTorch) {
  EngineQuery query;
  query.version = EngineVersion{0, 11, 0};
  const DeviceSpec device = *load_device("a100-80g");
  const EngineBudget b = budget(*load_model("llama3-8b"), device, query);
  // The runtime's total, 79.15 GiB on an A100-SXM4-80GB, not the nominal 80 GiB.
  EXPECT_EQ(b.total_bytes, static_cast<uint64_t>(79.15 * kBytesPerGiB));
  const uint64_t requested =
      static_cast<uint64_t>(std::floor(static_cast<long double>(b.total_bytes) * 0.9));
  EXPECT_EQ(b.requested_bytes, requested);
  EXPECT_EQ(b.max_num_batched_tokens, 2048u);
  EXPECT_EQ(b.max_num_seqs, 256u);
  EXPECT_EQ(term_bytes(b, "weights"), kLlama8bWeights);
  EXPECT_EQ(term_bytes(b, "activation peak"), kLlama8bActivation);
  EXPECT_EQ(term_bytes(b, "non-torch memory"), 60 * kGiB / 1000);
  EXPECT_FALSE(b.graphs_subtracted);  // 0.11: graphs come out of the 1 - utilization slack
  EXPECT_EQ(b.kv_budget_bytes, requested - kLlama8bWeights - kLlama8bActivation - 60 * kGiB / 1000);
}

// Model runner v2 profiles dense models from 0.25 and every model from 0.29: its sampler keeps
// the logits and an fp32 copy (2 + 4 B per logit), a cold torch.compile's peak is the embedding
// table plus the batch's hidden states, and it subtracts no graph estimate before 0.29.
TEST(EngineMemoryTest, VllmModelRunnerV2ChargesAColdCompileAndNoGraphsBefore029) {
  const auto has_runner_v2_note = [](const EngineBudget& b) {
    for (const std::string& note : b.notes) {
      if (note.find("model runner v2") != std::string::npos) return true;
    }
    return false;
  };
  const ModelSpec dense = *load_model("llama3-8b");
  const DeviceSpec device = *load_device("a100-80g");
  EngineQuery query;
  query.version = EngineVersion{0, 25, 0};
  const EngineBudget v2 = budget(dense, device, query);
  // (128,256 vocab + 2,048 tokens) x 4096 x 2 B, above the sampler's 2048 x 4096 x 2 + 256 x
  // 128,256 x 6 = 213,778,432 B and the forward's 226,492,416 B.
  EXPECT_EQ(term_bytes(v2, "activation peak"), (128'256ull + 2048) * 4096 * 2);
  EXPECT_FALSE(v2.graphs_subtracted);
  EXPECT_TRUE(has_runner_v2_note(v2));
  query.enforce_eager = true;  // no compile: the forward is the peak
  EXPECT_EQ(term_bytes(budget(dense, device, query), "activation peak"),
            2048ull * (3 * 4096 + 3 * 14336) * 2);
  query.enforce_eager = false;
  query.warm_compile_cache = true;  // a restart: no compile inside the profile either
  const EngineBudget warm = budget(dense, device, query);
  EXPECT_EQ(term_bytes(warm, "activation peak"), 2048ull * (3 * 4096 + 3 * 14336) * 2);
  EXPECT_GT(warm.kv_budget_bytes, v2.kv_budget_bytes);
  query.warm_compile_cache = false;
  query.version = EngineVersion{0, 29, 0};
  EXPECT_TRUE(budget(dense, device, query).graphs_subtracted);  // PR #53306
  query.version = EngineVersion{0, 24, 0};
  const EngineBudget first = budget(dense, device, query);
  // The first runner's Triton top-k/top-p from 0.17: 15 B per 16-bit logit.
  EXPECT_EQ(term_bytes(first, "activation peak"), 2048ull * 4096 * 2 + 256ull * 128'256 * 15);
  EXPECT_TRUE(first.graphs_subtracted);
  EXPECT_FALSE(has_runner_v2_note(first));

  // A MoE model keeps the first runner until 0.29.
  const ModelSpec moe = *load_model("qwen3-30b-a3b");
  query.version = EngineVersion{0, 28, 0};
  EXPECT_EQ(term_bytes(budget(moe, device, query), "activation peak"),
            2048ull * moe.hidden_size * 2 + 256ull * moe.vocab_size * 15);
  query.version = EngineVersion{0, 29, 0};
  EXPECT_EQ(term_bytes(budget(moe, device, query), "activation peak"),
            (uint64_t{moe.vocab_size} + 2048) * moe.hidden_size * 2);
}

TEST(EngineMemoryTest, TheTotalIsTheRuntimesUnlessADeploymentGivesOne) {
  const ModelSpec model = *load_model("llama3-8b");
  const DeviceSpec device = *load_device("a100-80g");
  EngineQuery query;
  EngineBudget b = budget(model, device, query);
  EXPECT_EQ(b.total_bytes, device.runtime_memory_bytes);
  EXPECT_NE(b.total_source.find("runtime's total on a100-80g"), std::string::npos)
      << b.total_source;
  query.total_memory_bytes = 80 * kGiB;
  b = budget(model, device, query);
  EXPECT_EQ(b.total_bytes, 80 * kGiB);
  EXPECT_NE(b.total_source.find("deployment"), std::string::npos) << b.total_source;
  DeviceSpec unknown = device;
  unknown.runtime_memory_bytes = 0;
  b = budget(model, unknown, EngineQuery{});
  EXPECT_EQ(b.total_bytes, 80 * kGiB);
  EXPECT_NE(b.total_source.find("may be high"), std::string::npos) << b.total_source;
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

// The 38 B sampler constant was fitted to 256-row logs; an H100 is a "large" device for vLLM
// (1,024 sequences), and llm-d-planner's DEBUG-log measurements on one (vLLM 0.11.0, TP1,
// docs/engine_memory.md "Measured breakdowns on an H100") give the peak at 1,024 rows.
TEST(EngineMemoryTest, VllmSamplerPeakAt1024RowsMatchesH100Measurements) {
  const DeviceSpec device = *load_device("h100-sxm");
  EngineQuery query;
  query.version = EngineVersion{0, 11, 0};
  const struct {
    const char* model;
    double measured_gib;  // "torch peak memory increase", rounded to 0.01 GiB
  } rows[] = {{"llama-3.1-8b", 4.76}, {"qwen3-32b", 5.64}, {"gpt-oss-20b", 7.38}};
  for (const auto& row : rows) {
    const EngineBudget b = budget(*load_model(row.model), device, query);
    EXPECT_EQ(b.max_num_seqs, 1024u) << row.model;
    EXPECT_EQ(b.max_num_batched_tokens, 8192u) << row.model;
    const double modelled_gib =
        static_cast<double>(term_bytes(b, "activation peak")) / kBytesPerGiB;
    EXPECT_NEAR(modelled_gib / row.measured_gib, 1.0, 0.02) << row.model;
  }
}

// From 0.17 the first runner's top-k/top-p is a Triton kernel (PR #33538): activation bytes +
// 13 per logit, fitted to vLLM 0.19.0's H100 DEBUG logs (Llama-3.1-8B: 1.89 GiB at bf16, 2.21 at
// fp32); 0.16 still sorts.
TEST(EngineMemoryTest, VllmFirstRunnerSamplerIsTritonFrom017) {
  const ModelSpec model = *load_model("llama-3.1-8b");
  const DeviceSpec device = *load_device("h100-sxm");
  EngineQuery query;
  query.version = EngineVersion{0, 19, 0};
  EXPECT_EQ(term_bytes(budget(model, device, query), "activation peak"),
            8192ull * 4096 * 2 + 1024ull * 128'256 * 15);
  query.version = EngineVersion{0, 16, 0};
  EXPECT_EQ(term_bytes(budget(model, device, query), "activation peak"),
            8192ull * 4096 * 2 + 1024ull * 128'256 * 38);
}

// Non-torch memory at TP >= 2 (engine_memory_rules.h): NCCL over NVLink costs far more than
// over PCIe, its set-up counts only while the worker's snapshot preceded the distributed init
// (< 0.11), and from 0.16 to 0.26 FlashInfer's fused all-reduce workspace on an NVSwitch with
// multicast is three 512 MiB buffers (TP 2, 4, 8; no torch.compile, no fusion).
TEST(EngineMemoryTest, VllmNonTorchAtTp2FollowsTheLinkAndTheVersion) {
  const ModelSpec model = *load_model("llama-3.1-8b");
  const auto non_torch = [&](const char* device, uint32_t tp, EngineVersion version,
                             bool eager = false) {
    CapacityQuery capacity;
    capacity.tp = tp;
    EngineQuery query;
    query.version = version;
    query.enforce_eager = eager;
    auto b = compute_engine_budget(model, *load_device(device), capacity, query);
    EXPECT_TRUE(b.is_ok()) << b.status().message();
    return b.is_ok() ? term_bytes(*b, "non-torch memory") : 0;
  };
  const uint64_t base = 60 * kGiB / 1000;
  const uint64_t connect = 42 * kGiB / 100;
  const uint64_t setup = 93 * kGiB / 100;
  const uint64_t workspace = 3 * 512 * kMiB;
  EXPECT_EQ(non_torch("h100-sxm", 1, {0, 19, 0}), base);
  EXPECT_EQ(non_torch("h100-sxm", 2, {0, 10, 2}), base + setup + connect);
  EXPECT_EQ(non_torch("h100-sxm", 2, {0, 11, 0}), base + connect);
  EXPECT_EQ(non_torch("h100-sxm", 2, {0, 15, 1}), base + connect);
  EXPECT_EQ(non_torch("h100-sxm", 2, {0, 16, 0}), base + connect + workspace);
  EXPECT_EQ(non_torch("h100-sxm", 4, {0, 19, 0}), base + connect + workspace);
  EXPECT_EQ(non_torch("h100-sxm", 8, {0, 26, 0}), base + connect + workspace);
  EXPECT_EQ(non_torch("h100-sxm", 4, {0, 27, 0}), base + connect);
  EXPECT_EQ(non_torch("h100-sxm", 4, {0, 19, 0}, true), base + connect);  // eager: no fusion
  EXPECT_EQ(non_torch("h100-sxm", 3, {0, 19, 0}), base + connect);  // FlashInfer: 2, 4, 8 only
  EXPECT_EQ(non_torch("a100-80g", 2, {0, 19, 0}), base + connect);  // NVLink, no multicast
  EXPECT_EQ(non_torch("l40s", 8, {0, 10, 2}), base + 7 * (21 * kGiB / 1000));  // PCIe
  EXPECT_EQ(non_torch("l40s", 8, {0, 19, 0}), base);
}

TEST(EngineMemoryTest, VllmFrom021SubtractsGraphsAtUtilization092) {
  EngineQuery query;
  query.version = EngineVersion{0, 21, 0};
  const EngineBudget b = budget(*load_model("llama3-8b"), *load_device("a100-80g"), query);
  EXPECT_DOUBLE_EQ(b.memory_utilization, 0.92);
  EXPECT_TRUE(b.graphs_subtracted);
  EXPECT_EQ(term_bytes(b, "CUDA graphs"), 32 * 18 * kMiB);
}

// vLLM's largest capture size is min(2 x max_num_seqs, 512) from 0.10 (512 before), and the
// graphs share one pool that the largest batch sizes: 32 sequences capture up to 64, an eighth.
TEST(EngineMemoryTest, VllmGraphEstimateScalesWithTheLargestCaptureSize) {
  EngineQuery query;
  query.version = EngineVersion{0, 21, 0};
  query.max_num_seqs = 32;
  const ModelSpec llama = *load_model("llama3-8b");
  const DeviceSpec a100 = *load_device("a100-80g");
  EngineBudget b = budget(llama, a100, query);
  EXPECT_EQ(b.graph_capture_size, 64u);
  EXPECT_EQ(term_bytes(b, "CUDA graphs"), 32 * 18 * kMiB / 8);
  query.max_num_seqs = 300;  // 600, capped at 512
  EXPECT_EQ(budget(llama, a100, query).graph_capture_size, 512u);
  query.max_num_seqs = 32;
  query.max_num_batched_tokens = 48;  // never above the batched tokens
  EXPECT_EQ(budget(llama, a100, query).graph_capture_size, 48u);
  query.max_num_batched_tokens = 0;
  query.version = EngineVersion{0, 9, 2};  // before PR #20628: 512 whatever the sequences
  query.cuda_graph_memory = true;
  b = budget(llama, a100, query);
  EXPECT_EQ(b.graph_capture_size, 512u);
  EXPECT_EQ(term_bytes(b, "CUDA graphs"), 32 * 18 * kMiB);
}

// Memory other processes hold at start: vLLM V1 <= 0.9.0 charges it (non_torch = total - free
// - torch_allocated); from 0.9.1 the worker checks free >= requested at start and charges none
// of it, refusing to start otherwise (gpu_worker.py init_device: "Free memory on device ... on
// startup is less than desired GPU memory utilization"), as vllm-ascend does from 0.15.
TEST(EngineMemoryTest, OtherProcessesShrinkOldVllmAndStopNewVllmFromStarting) {
  const ModelSpec model = *load_model("llama3-8b");
  const DeviceSpec a100 = *load_device("a100-80g");  // 79.15 GiB; 0.9 of it is 71.24 GiB
  EngineQuery query;
  query.version = EngineVersion{0, 9, 0};
  const uint64_t old_alone = budget(model, a100, query).kv_budget_bytes;
  query.device_used_bytes = 10 * kGiB;
  EXPECT_EQ(budget(model, a100, query).kv_budget_bytes, old_alone - 10 * kGiB);
  query.version = EngineVersion{0, 11, 0};
  query.device_used_bytes = 0;
  const uint64_t alone = budget(model, a100, query).kv_budget_bytes;
  query.device_used_bytes = 5 * kGiB;  // 74.15 GiB free: it starts, and charges none of it
  EXPECT_EQ(budget(model, a100, query).kv_budget_bytes, alone);
  query.device_used_bytes = 10 * kGiB;  // 69.15 GiB free
  const auto refused = compute_engine_budget(model, a100, CapacityQuery{}, query);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("refuses to start"), std::string::npos);
  EXPECT_NE(refused.status().message().find("69.15 GiB"), std::string::npos)
      << refused.status().message();
  const DeviceSpec npu = *load_device("ascend-910b4-1");  // 60.96 GiB; 0.9 of it is 54.86
  query.kind = EngineKind::kVllmAscend;
  query.version = EngineVersion{0, 15, 0};
  EXPECT_FALSE(compute_engine_budget(model, npu, CapacityQuery{}, query).is_ok());
  query.version = EngineVersion{0, 14, 0};
  EXPECT_EQ(term_bytes(budget(model, npu, query), "other processes"), 10 * kGiB);
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
  const DeviceSpec device = *load_device("a100-80g");
  const EngineBudget b = budget(*load_model("llama3-8b"), device, query);
  // The runtime's total (SGLang reads torch's), less the CUDA context.
  const uint64_t free_at_start = device.runtime_memory_bytes - 290 * kGiB / 1000;
  const uint64_t requested = static_cast<uint64_t>(static_cast<long double>(free_at_start) * 0.8L);
  EXPECT_EQ(b.requested_bytes, requested);
  EXPECT_EQ(b.block_size, 1u);
  EXPECT_EQ(b.kv_budget_bytes, requested - kLlama8bWeights);

  // SGLang's total is the free memory after the distributed init: at TP2 NCCL's set-up is gone
  // too, 0.93 GiB over NVLink (the A100's), 0.021 GiB per peer over PCIe (the L40S's).
  CapacityQuery tp2;
  tp2.tp = 2;
  const auto requested_at_tp2 = [&](const DeviceSpec& d) {
    auto r = compute_engine_budget(*load_model("llama3-8b"), d, tp2, query);
    EXPECT_TRUE(r.is_ok()) << r.status().message();
    return r.is_ok() ? r->requested_bytes : 0;
  };
  const auto times_08 = [](uint64_t bytes) {
    return static_cast<uint64_t>(static_cast<long double>(bytes) * 0.8L);
  };
  EXPECT_EQ(requested_at_tp2(device), times_08(free_at_start - 93 * kGiB / 100));
  const DeviceSpec l40s = *load_device("l40s");
  EXPECT_EQ(requested_at_tp2(l40s),
            times_08(l40s.runtime_memory_bytes - 290 * kGiB / 1000 - 21 * kGiB / 1000));
}

// MindIE (run_pa.py): NPU_MEMORY_FRACTION 0.8 of the device, less the warm-up peak: weights
// and one prefill of maxPrefillTokens 8192 over maxPrefillBatchSize 50 sequences. Llama-7B
// fp16 (hidden 4096, intermediate 11,008, 32 heads of 128, vocab 32,000) on a 64 GiB 910B3,
// whose NPU runtime reports 65,452,113,920 B.
TEST(EngineMemoryTest, MindieTakesItsFractionLessTheWarmUpPeak) {
  EngineQuery query;
  query.kind = EngineKind::kMindie;
  const EngineBudget b = budget(*load_model("llama-7b"), *load_device("ascend-910b3"), query);
  EXPECT_EQ(b.total_bytes, 65'452'113'920ull);
  const uint64_t requested = static_cast<uint64_t>(65'452'113'920.0L * 0.8L);
  const uint64_t weights = 6'738'415'616ull * 2;
  // forward: 8192 tokens x MLP (3 x 4096 + 3 x 11,008) x 2 B, above attention's
  // (3 x 4096 + (2 x 32 + 2 x 32) x 128) and the sampler's 8192 x 4096 x 2 + 50 x 32,000 x 6.
  const uint64_t activation = 8192ull * (3 * 4096 + 3 * 11'008) * 2;
  EXPECT_EQ(b.requested_bytes, requested);
  EXPECT_EQ(b.block_size, 128u);
  EXPECT_FALSE(b.chunked_prefill);
  EXPECT_EQ(b.max_num_batched_tokens, 8192u);
  EXPECT_EQ(b.max_num_seqs, 50u);
  EXPECT_EQ(term_bytes(b, "weights"), weights);
  EXPECT_EQ(term_bytes(b, "activation peak"), activation);
  EXPECT_EQ(b.kv_budget_bytes, requested - weights - activation);
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

// The engine section of scenarios and deployment files names the compile cache's state, and a
// deployment file writes it back.
TEST(EngineMemoryTest, EngineSectionReadsAndWritesTheCompileCache) {
  auto node = parse_yaml("name: vllm\ncompile_cache: warm\n", "engine.yaml");
  ASSERT_TRUE(node.is_ok()) << node.status().message();
  EngineQuery query;
  ASSERT_TRUE(read_engine_config(*node, EngineConfigKeys::kScenario, &query).is_ok());
  EXPECT_TRUE(query.warm_compile_cache);
  EngineQuery back;
  ASSERT_TRUE(
      read_engine_config(engine_config_node(query), EngineConfigKeys::kDeployment, &back).is_ok());
  EXPECT_TRUE(back.warm_compile_cache);
  auto bad = parse_yaml("name: vllm\ncompile_cache: hot\n", "engine.yaml");
  ASSERT_TRUE(bad.is_ok());
  const Status status = read_engine_config(*bad, EngineConfigKeys::kScenario, &query);
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("engine.yaml:2"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("'warm' or 'cold'"), std::string::npos) << status.message();
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

// vLLM 0.19's DEBUG environment dump names VLLM_MARLIN_INPUT_DTYPE: "INPUT" is not an NPU
// (it made a vLLM 0.19.0 H100 log read as vllm-ascend's), and its worker's baseline snapshot
// prints a non_torch_memory that is not the set-aside term.
TEST(StartupLogTest, V019DebugLinesAreNoNpuAndNoNonTorchTerm) {
  auto log = parse_startup_log(
      "INFO 04-22 [v1/engine/core.py:105] Initializing a V1 LLM engine (v0.19.0) with config\n"
      "DEBUG 04-22 [compilation/backends.py:1074]  'VLLM_MARLIN_INPUT_DTYPE': None,\n"
      "DEBUG 04-22 [v1/worker/gpu_worker.py:284] worker init memory snapshot: "
      "cuda_memory=1.55GiB, torch_memory=0.02GiB, non_torch_memory=1.53GiB\n"
      "INFO 04-22 [v1/core/kv_cache_utils.py:1319] GPU KV cache size: 2,209,792 tokens\n",
      "v019.log");
  ASSERT_TRUE(log.is_ok()) << log.status().message();
  ASSERT_TRUE(log->engine.has_value());
  EXPECT_EQ(*log->engine, EngineKind::kVllm) << log->engine_evidence;
  EXPECT_FALSE(log->non_torch_bytes.has_value());  // the worker's baseline, not the term
  auto ascend = parse_startup_log("INFO NPUWorker: Available KV cache memory: 1.00 GiB\n", "a.log");
  ASSERT_TRUE(ascend.is_ok()) << ascend.status().message();
  EXPECT_EQ(ascend->engine, EngineKind::kVllmAscend);
}

// vLLM >= 0.2x prints weights and non-torch memory as one "consumed memory"; the calibration
// takes the non-torch term as that less the weights. The command line gives max_num_seqs.
TEST(StartupLogTest, ConsumedMemoryLessWeightsIsTheNonTorchTerm) {
  auto log = parse_startup_log(
      "# vllm/vllm-openai:latest Qwen/Qwen3-235B-A22B-Instruct-2507-FP8 --max-num-seqs 32\n"
      "(Worker_TP0 pid=770) INFO [gpu_model_runner.py:5405] Model loading took 55.19 GiB memory\n"
      "(Worker_TP0 pid=770) INFO [gpu_worker.py:789] Free memory on device (94.05/95.01 GiB) on "
      "startup. Desired GPU memory utilization is (0.9, 85.51 GiB). Actual usage is 56.89 GiB "
      "for consumed memory (weights + non-torch), 0.76 GiB for peak activation, and 0.32 GiB "
      "for CUDAGraph memory.\n",
      "consumed.log");
  ASSERT_TRUE(log.is_ok()) << log.status().message();
  ASSERT_TRUE(log->max_num_seqs.has_value());
  EXPECT_EQ(log->max_num_seqs->value, 32);
  ASSERT_TRUE(log->consumed_bytes.has_value());
  EXPECT_NEAR(log->consumed_bytes->value, 56.89 * kBytesPerGiB, 0.01 * kBytesPerGiB);
  EXPECT_FALSE(log->non_torch_bytes.has_value());
  ASSERT_TRUE(log->weights_bytes.has_value());
  ASSERT_TRUE(log->graph_bytes.has_value());
  EXPECT_NEAR(log->graph_bytes->value, 0.32 * kBytesPerGiB, 0.01 * kBytesPerGiB);
}

// Several workers print their own pool; vLLM V1 allocates the smallest on every one, and its
// stat logger prints that unified pool in blocks.
TEST(StartupLogTest, PerWorkerPoolsKeepTheSmallestAndTheStatLoggerGivesBlocks) {
  auto log = parse_startup_log(
      "GPU KV cache size: 238,208 tokens\n"
      "Maximum concurrency for 32,768 tokens per request: 7.27x\n"
      "GPU KV cache size: 237,344 tokens\n"
      "Maximum concurrency for 32,768 tokens per request: 7.24x\n"
      "GPU KV cache size: 237,520 tokens\n"
      "Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 14834\n",
      "tp8.log");
  ASSERT_TRUE(log.is_ok()) << log.status().message();
  ASSERT_TRUE(log->kv_tokens.has_value());
  EXPECT_EQ(log->kv_tokens->value, 237'344);
  EXPECT_EQ(log->kv_tokens->line, 3);
  ASSERT_TRUE(log->max_concurrency.has_value());
  EXPECT_DOUBLE_EQ(log->max_concurrency->value, 7.24);
  ASSERT_TRUE(log->num_blocks.has_value());
  EXPECT_EQ(log->num_blocks->value, 14'834);
  EXPECT_EQ(log->engine, EngineKind::kVllm);
}

// Posted logs wrap long lines (blog posts, notes) and commands continue over lines with a
// backslash; a figure read across the break is reported at the line where it starts, and two
// unrelated lines are not read as one.
TEST(StartupLogTest, FiguresAcrossAWrappedLineOrAShellContinuation) {
  auto log = parse_startup_log(
      "$ vllm serve \\\n"
      "    Qwen/Qwen3-8B \\\n"
      "    --tensor-parallel-size 2\n"
      "Free memory on device (30.86/31.36 GiB) on startup. Desired GPU memory\n"
      "utilization is (0.7, 21.95 GiB). Actual usage is 11.22 GiB for consumed\n"
      "memory (weights + non-torch), 1.46 GiB for peak activation, and 0.52 GiB\n"
      "for CUDAGraph memory. Current kv cache memory in use is 9.27 GiB.\n"
      "GPU KV cache size: 75,824 tokens\n"
      "Maximum concurrency for 40,960 tokens per request: 1.85x\n",
      "wrapped.log");
  ASSERT_TRUE(log.is_ok()) << log.status().message();
  EXPECT_EQ(log->model, "Qwen/Qwen3-8B");
  ASSERT_TRUE(log->tp.has_value());
  EXPECT_EQ(log->tp->value, 2);
  ASSERT_TRUE(log->memory_utilization.has_value());
  EXPECT_DOUBLE_EQ(log->memory_utilization->value, 0.7);
  ASSERT_TRUE(log->requested_bytes.has_value());
  EXPECT_NEAR(log->requested_bytes->value, 21.95 * kBytesPerGiB, 0.01 * kBytesPerGiB);
  EXPECT_EQ(log->requested_bytes->line, 4);
  ASSERT_TRUE(log->consumed_bytes.has_value());
  EXPECT_NEAR(log->consumed_bytes->value, 11.22 * kBytesPerGiB, 0.01 * kBytesPerGiB);
  EXPECT_EQ(log->consumed_bytes->line, 5);
  ASSERT_TRUE(log->activation_bytes.has_value());
  ASSERT_TRUE(log->graph_bytes.has_value());
  EXPECT_NEAR(log->graph_bytes->value, 0.52 * kBytesPerGiB, 0.01 * kBytesPerGiB);
  EXPECT_TRUE(log->notes.empty()) << log->notes.front();  // nothing read twice
  // A pattern with ".*" does not reach into the next line.
  auto apart = parse_startup_log(
      "Requested memory: see below\nthe pool = 3.00 GiB\nGPU KV cache size: 1,024 tokens\n",
      "apart.log");
  ASSERT_TRUE(apart.is_ok()) << apart.status().message();
  EXPECT_FALSE(apart->requested_bytes.has_value());
}

// The engine line states enforce_eager; torch.compile says whether its cache was warm.
TEST(StartupLogTest, EnforceEagerAndTheCompileCacheState) {
  auto warm = parse_startup_log(
      "Initializing a V1 LLM engine (v0.10.2) with config: ..., enforce_eager=False, ...\n"
      "Directly load the compiled graph(s) for dynamic shape from the cache, took 4.563 s\n"
      "GPU KV cache size: 62,608 tokens\n",
      "warm.log");
  ASSERT_TRUE(warm.is_ok()) << warm.status().message();
  ASSERT_TRUE(warm->enforce_eager.has_value());
  EXPECT_EQ(warm->enforce_eager->value, 0);
  ASSERT_TRUE(warm->warm_compile_cache.has_value());
  EXPECT_EQ(warm->warm_compile_cache->value, 1);
  EXPECT_EQ(warm->warm_compile_cache->line, 2);
  auto cold = parse_startup_log(
      "$ vllm serve Qwen/Qwen3-8B --enforce-eager\n"
      "Compiling a graph for compile range (1, 4096) takes 8.53 s\n"
      "GPU KV cache size: 62,608 tokens\n",
      "cold.log");
  ASSERT_TRUE(cold.is_ok()) << cold.status().message();
  ASSERT_TRUE(cold->enforce_eager.has_value());
  EXPECT_EQ(cold->enforce_eager->value, 1);
  ASSERT_TRUE(cold->warm_compile_cache.has_value());
  EXPECT_EQ(cold->warm_compile_cache->value, 0);
}

TEST(StartupLogTest, VersionFromTheBannerOrTheDockerImageTag) {
  auto banner = parse_startup_log(
      "INFO [api_utils.py:345]  \u2584\u2584 \u2584\u2588 \u2588     \u2588  version 0.27.1\n"
      "GPU KV cache size: 1,629,520 tokens\n",
      "banner.log");
  ASSERT_TRUE(banner.is_ok()) << banner.status().message();
  EXPECT_EQ(banner->version_text, "0.27.1");
  auto docker = parse_startup_log(
      "$ docker run --gpus all vllm/vllm-openai:v0.31.0-ubuntu2404 --model m\n"
      "GPU KV cache size: 460,496 tokens\n",
      "docker.log");
  ASSERT_TRUE(docker.is_ok()) << docker.status().message();
  EXPECT_EQ(docker->version_text, "0.31.0");
  // Other "version" lines name no vLLM release.
  auto nccl = parse_startup_log(
      "NCCL INFO NCCL version 2.21.5+cuda12.4\nGPU KV cache size: 1,000 tokens\n", "nccl.log");
  ASSERT_TRUE(nccl.is_ok()) << nccl.status().message();
  EXPECT_FALSE(nccl->version.has_value());
}

}  // namespace
}  // namespace kvsim
