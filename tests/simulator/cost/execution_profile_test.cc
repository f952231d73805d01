// The engines' execution rules (simulator/cost/execution_profile.h), each pinned to the engine
// code it follows, and what they do to an iteration's time.
#include "simulator/cost/execution_profile.h"

#include <gtest/gtest.h>

#include "core/engine/capacity.h"
#include "core/model/load_spec.h"
#include "simulator/cost/batch_spec.h"
#include "simulator/cost/operator_cost_model.h"

namespace kvsim::sim {
namespace {

DeviceSpec device(const char* name) { return load_device(name).value(); }

EngineQuery engine(EngineKind kind, const char* version) {
  EngineQuery query;
  query.kind = kind;
  query.version = parse_engine_version(version).value();
  return query;
}

TEST(ExecutionProfile, VllmGraphModesFollowTheVersion) {
  const DeviceSpec h100 = device("h100-sxm");
  // 0.11 on: FULL_AND_PIECEWISE (PR #25444); capture up to min(2 x max_num_seqs, 512) tokens.
  const ExecutionProfile v15 = execution_profile(engine(EngineKind::kVllm, "0.15.1"), h100, 1, 128);
  EXPECT_TRUE(v15.decode_graphs);
  EXPECT_TRUE(v15.piecewise_graphs);
  EXPECT_FALSE(v15.other_graphs);
  EXPECT_EQ(v15.max_graph_tokens, 256u);
  EXPECT_TRUE(v15.overlap_cpu);  // async scheduling from 0.14 (PR #27614)
  const ExecutionProfile v13 = execution_profile(engine(EngineKind::kVllm, "0.13.0"), h100, 1, 0);
  EXPECT_FALSE(v13.overlap_cpu);
  EXPECT_EQ(v13.max_graph_tokens, 512u);
  // Before 0.11: PIECEWISE everywhere, no full decode graph.
  const ExecutionProfile v10 = execution_profile(engine(EngineKind::kVllm, "0.10.2"), h100, 1, 0);
  EXPECT_FALSE(v10.decode_graphs);
  EXPECT_TRUE(v10.piecewise_graphs);
  EngineQuery eager = engine(EngineKind::kVllm, "0.15.1");
  eager.enforce_eager = true;
  const ExecutionProfile none = execution_profile(eager, h100, 1, 0);
  EXPECT_FALSE(none.decode_graphs || none.piecewise_graphs || none.other_graphs);
}

TEST(ExecutionProfile, SglangAndV0CaptureDecodeBatchesUpToTheirLimits) {
  const DeviceSpec h100 = device("h100-sxm");
  // cuda_graph_max_bs on an 80 GB GPU: 256 below TP 4, 512 from TP 4; prefill eager.
  const ExecutionProfile tp1 = execution_profile(engine(EngineKind::kSglang, "0.5.3"), h100, 1, 0);
  EXPECT_EQ(tp1.max_graph_tokens, 256u);
  EXPECT_TRUE(tp1.decode_graphs);
  EXPECT_FALSE(tp1.piecewise_graphs);
  EXPECT_EQ(execution_profile(engine(EngineKind::kSglang, "0.5.3"), h100, 4, 0).max_graph_tokens,
            512u);
  EXPECT_EQ(
      execution_profile(engine(EngineKind::kSglang, "0.5.3"), device("l4"), 1, 0).max_graph_tokens,
      24u);  // a 24 GB GPU
  EXPECT_EQ(execution_profile(engine(EngineKind::kVllmV0, "0.6.3"), h100, 1, 0).max_graph_tokens,
            256u);
}

TEST(ExecutionProfile, TheAllReduceKernelFollowsSizeGroupAndLink) {
  const DeviceSpec h100 = device("h100-sxm");
  const EngineQuery vllm = engine(EngineKind::kVllm, "0.15.1");
  const ExecutionProfile tp4 = execution_profile(vllm, h100, 4, 0);
  // custom_all_reduce.cuh: one-shot below 512 KiB at <= 4 ranks, two-shot up to 8 MiB.
  EXPECT_EQ(all_reduce_kernel(tp4, 511 * 1024.0), AllReduceKernel::kOneShot);
  EXPECT_EQ(all_reduce_kernel(tp4, 512 * 1024.0), AllReduceKernel::kTwoShot);
  EXPECT_EQ(all_reduce_kernel(tp4, 8 * 1024 * 1024.0 - 16), AllReduceKernel::kTwoShot);
  EXPECT_EQ(all_reduce_kernel(tp4, 8 * 1024 * 1024.0), AllReduceKernel::kNccl);
  const ExecutionProfile tp8 = execution_profile(vllm, h100, 8, 0);
  EXPECT_EQ(all_reduce_kernel(tp8, 255 * 1024.0), AllReduceKernel::kOneShot);
  EXPECT_EQ(all_reduce_kernel(tp8, 300 * 1024.0), AllReduceKernel::kTwoShot);
  EXPECT_EQ(all_reduce_kernel(execution_profile(vllm, h100, 2, 0), 4e6), AllReduceKernel::kOneShot);
  // Not 2, 4, 6 or 8 ranks; no NVLink (L40S over PCIe); an engine without the kernel.
  EXPECT_EQ(all_reduce_kernel(execution_profile(vllm, h100, 3, 0), 1e5), AllReduceKernel::kNccl);
  EXPECT_EQ(all_reduce_kernel(execution_profile(vllm, device("l40s"), 2, 0), 1e5),
            AllReduceKernel::kNccl);
  EXPECT_EQ(
      all_reduce_kernel(execution_profile(engine(EngineKind::kVllmV0, "0.2.7"), h100, 2, 0), 1e5),
      AllReduceKernel::kNccl);  // before PR #2192 (0.3.0)
  EXPECT_EQ(
      all_reduce_kernel(execution_profile(engine(EngineKind::kSglang, "0.5.3"), h100, 4, 0), 1e5),
      AllReduceKernel::kOneShot);
}

TEST(ExecutionProfile, AGraphSettingIsAGenericExecutionInPlaceOfTheEngines) {
  const ExecutionProfile v15 =
      execution_profile(engine(EngineKind::kVllm, "0.15.1"), device("h100-sxm"), 4, 0);
  const ExecutionProfile all = with_cuda_graphs(v15, CudaGraphs::kAll);
  EXPECT_TRUE(all.decode_graphs && all.other_graphs);
  EXPECT_FALSE(all.piecewise_graphs || all.custom_all_reduce || all.overlap_cpu);
  EXPECT_EQ(all.max_graph_tokens, 0u);
  EXPECT_EQ(all.tp, 4u);
  const ExecutionProfile kept = with_cuda_graphs(v15, CudaGraphs::kEngine);
  EXPECT_EQ(kept.rules, v15.rules);
}

// Llama-2-70B at TP 4 on H100: what each rule saves on one decode iteration.
class ProfileCost : public ::testing::Test {
 protected:
  double decode_s(const ExecutionProfile& profile, uint32_t decodes) const {
    const ModelSpec model = load_model("llama2-70b").value();
    const DeviceSpec h100 = device("h100-sxm");
    CapacityQuery query;
    query.tp = 4;
    const auto capacity = compute_capacity(model, &h100, query).value();
    const OperatorCostModel cost(operator_inputs(model, h100, capacity, DType::kFp16, 4),
                                 operator_fit_for_device(h100), profile);
    return cost.iteration_s(
        parse_batch_spec("decode:" + std::to_string(decodes) + "x700", 0).value());
  }
};

TEST_F(ProfileCost, CustomAllReduceGraphsAndOverlapEachShortenADecodeIteration) {
  const ExecutionProfile v15 =
      execution_profile(engine(EngineKind::kVllm, "0.15.1"), device("h100-sxm"), 4, 128);
  ExecutionProfile nccl = v15;
  nccl.custom_all_reduce = false;
  ExecutionProfile serial = v15;
  serial.overlap_cpu = false;
  ExecutionProfile eager = v15;
  eager.decode_graphs = eager.piecewise_graphs = false;
  const double t = decode_s(v15, 40);
  // 161 all-reduces of 40 x 8,192 x 2 bytes: NCCL 36 us each, the two-shot kernel 17 us.
  EXPECT_NEAR(decode_s(nccl, 40) - t, 161 * (36.06e-6 - 17.44e-6), 0.05e-3);
  EXPECT_NEAR(decode_s(serial, 40) - t, 0.5e-3, 1e-9);  // the CPU's 0.5 ms no longer hidden
  EXPECT_GT(decode_s(eager, 40), t);
  // Beyond the capture size (256 tokens at 128 sequences) the iteration runs eager.
  ExecutionProfile eager_v15 = eager;
  eager_v15.overlap_cpu = true;
  EXPECT_NEAR(decode_s(v15, 300), decode_s(eager_v15, 300), 1e-12);
}

}  // namespace
}  // namespace kvsim::sim
