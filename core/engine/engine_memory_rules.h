// Internal to core/engine/engine_memory*.cc: the per-engine budget rules and the figures they
// share. Every constant says what it is and which data it was fitted to or where it was read; none
// was tuned to make a validation row of docs/engine_memory.md come out right.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/units.h"
#include "core/engine/engine_memory.h"
#include "core/model/activation_memory.h"

namespace kvsim::engine_rules {

// Non-torch memory one GPU worker adds while loading and profiling (cuBLAS and attention
// workspaces, lazily loaded kernels), measured from the worker's start: 0.06 GiB. Fitted to the
// single-GPU "non_torch_memory" lines of vLLM V0 >= 0.6.5 (0.11, 0.05, 0.03 GiB; the same
// measurement as V1) and of the V1 16 GB log (0.06 GiB).
inline constexpr uint64_t kNonTorchBytes = 60 * kGiB / 1000;
// NCCL buffers per peer rank over PCIe, counted as non-torch memory while the worker's
// baseline snapshot preceded the distributed init (vLLM V0 and V1 < 0.11): fitted to one log, the
// non-torch term of the eight workers of a TP8 L40S run (v0.10.2; 0.21 GiB on six, 0.18 and 0.17 on
// two): the median 0.21 = 0.06 + 7 x 0.021. (An earlier fit read that log as TP4 and took 0.05.)
inline constexpr uint64_t kNcclPerPeerBytes = 21 * kGiB / 1000;
// NCCL over NVLink (core/model/device_spec.h has_nvlink), per worker at TP >= 2, whatever the TP
// (vLLM 0.19.0's TP2 and TP4 runs differ by 0.02 GiB at init and 0.07 GiB in the profile):
// - set up with the communicators, before the first collective: 0.93 GiB, fitted to vLLM
//   0.11.0's H100 runs (free at start 77.64 GiB at TP2 against 78.57 at TP1; llm-d-planner).
//   vLLM 0.19.0's init snapshots on H100s show 1.00-1.02 GiB (TP2, TP4).
// - connected inside the profile run, at the first collectives (NCCL >= 2.22 connects its
//   channels lazily): 0.42 GiB, fitted to vLLM 0.11.0's two H100 TP2 runs (non-torch 0.54 and
//   0.55 GiB against 0.13 at TP1).
// Checked on a vLLM 0.10.2 H200 TP2 log, whose snapshot precedes the distributed init: it
// logs 1.38 GiB of non-torch memory, kvsim 0.06 + 0.93 + 0.42 = 1.41.
inline constexpr uint64_t kNvlinkNcclSetupBytes = 93 * kGiB / 100;
inline constexpr uint64_t kNvlinkNcclConnectBytes = 42 * kGiB / 100;
// The workspace of FlashInfer's fused all-reduce + RMSNorm (trtllm backend) on an NVSwitch
// with multicast (DeviceSpec::nvlink_multicast), per worker: three buffers (data, flags,
// Lamport), each rounded up to the multicast granularity cuMulticastGetGranularity recommends,
// 512 MiB (microsoft/mscclpp include/mscclpp/nvls.hpp: "the recommended buffer size for NVLS,
// returned by cuMulticastGetGranularity", 1 << 29), even with multicast off: FlashInfer
// 0.6.0-0.6.15 SymmDeviceMemory._get_allocation_prop (flashinfer/comm/mnnvl.py; #3745 in
// 0.6.16 rounds to it only with multicast on). Derived from the code; it is what vLLM 0.19.0's
// H100 runs at TP 2 and 4 log beyond 0.11.0's (2.06-2.21 GiB of non-torch memory, 15 runs,
// against 0.13 + 0.42), whatever their fused size (64 MB at TP2, 2 MB at TP4).
inline constexpr uint64_t kFusedAllReduceWorkspaceBytes = 3 * 512 * kMiB;
// The CUDA context and runtime of a worker (vLLM 0.6.4 and V1 <= 0.9.0 count it as non-torch;
// SGLang's free memory at start excludes it): 0.29 GiB, fitted to vLLM 0.6.4's RTX 3090 line
// non_torch_memory=0.35GiB less kNonTorchBytes.
inline constexpr uint64_t kCudaContextBytes = 290 * kGiB / 1000;
// Non-torch memory of an Ascend worker (CANN runtime, HCCL, operator workspaces): 1.0 GiB,
// fitted to the two ranks of one vllm-ascend 310P log (1.05 and 1.00 GiB).
inline constexpr uint64_t kNpuNonTorchBytes = kGiB;
// CUDA-graph memory per decoder layer (piecewise graphs, capture sizes up to 512): 18 MiB,
// fitted to three "Graph capturing finished ... took X GiB" lines (granite-4.0-micro 0.72 GiB /
// 40 layers, Qwen2.5-1.5B 0.49 / 28, Qwen2.5-7B-AWQ 0.48 / 28); MoE layers 37.5 MiB from one
// (Qwen3-235B-A22B, TP8 with expert parallelism: 3.45 GiB / 94 layers).
// All four ran with vLLM's default largest capture size, 512; kvsim scales the figure with
// that size, as vLLM's graphs share one memory pool whose size the largest batch sets ("the
// cost should only scale with the max batchsize", vllm-project/vllm#7894; PR #5074 made the
// outputs share a buffer for that reason). First order only: vLLM 0.21-0.2x's estimator also
// grows with the number of sizes (it extrapolates one graph's marginal cost, issue #45178).
inline constexpr uint64_t kGraphBytesPerLayer = 18 * kMiB;
inline constexpr uint64_t kMoeGraphBytesPerLayer = 75 * kMiB / 2;
inline constexpr uint32_t kGraphFittedCaptureSize = 512;
// The live set of the sort-based top-k/top-p sampler (vllm/v1/sample/sampler.py and
// ops/topk_topp_sampler.py apply_top_k_top_p, read at v0.11) at the scatter back to vocab
// order, per logit: the model-dtype logits + their fp32 copy 4 + sorted values 4 + sort
// indices (int64) 8 + top-k mask 1 + sorted softmax 4 + top-p mask 1 + scattered 4, i.e.
// activation bytes + 26. Derived from the code; vllm-ascend's sampler, whose sort is an NPU
// operator, is charged this.
inline constexpr uint32_t kSamplerLiveBytesPerLogitBeyondDtype = 26;
// The peak of that sampler on CUDA, in V1's first model runner and in vLLM V0 (whose sampler
// sorts the same way; its live set is 32 B): 38 B per logit, the set live while the sort runs,
// which is above the 28 B live at the scatter: the 16-bit logits 2 + their fp32 copy 4 + the
// sort's outputs (values 4, int64 indices 8) + PyTorch's temporaries for 128 or more rows
// (aten/src/ATen/native/cuda/SortStable.cu segmented_sort_pairs: an int64 index input 8, and
// cub's segmented radix sort's alternate key and value buffers 4 + 8). First fitted to the four
// logs whose activation peak is the sampler's and which print it, all 16-bit logits over 256
// sampled rows: V0 0.7.x Qwen2.5-Math-1.5B 1.40 GiB and Qwen2.5-7B 4-bit 1.42 GiB
// (151,936-152,064 vocab); V1 0.10.2 Qwen3-8B-FP8 at TP1 and Qwen3-235B-A22B-FP8 at TP8 (every
// rank), 1.40 GiB each (151,936 vocab). Checked at 1,024 rows on H100 measurements of vLLM 0.11.0
// (docs/engine_memory.md, "Measured breakdowns on an H100"): 0.04-0.07 GiB (0.7-1.5%) below the
// measured peak on seven rows of six models.
inline constexpr uint32_t kSortSamplerBytesPerLogit = 38;
// From vLLM 0.17.0 the first model runner's top-k/top-p is a Triton kernel without the full
// sort (PR #33538, in 0.17.0's release notes): activation bytes + 13 per logit, fitted to the
// sampler-dominated peaks of vLLM 0.19.0's DEBUG logs on an H100 at 1,024 rows (llm-d-planner,
// docs/engine_memory.md "vLLM 0.19 on an H100"): Llama-3.1-8B 1.89 GiB (128,256 vocab), Qwen2.5-7B
// and Qwen3-8B 2.21 (151,936-152,064), Gemma-2 2B/9B/27B 3.62-3.66 (256,000), 14.7-15.0 B per
// 16-bit logit, and Llama-3.1-8B in fp32 2.21 GiB (17 B).
inline constexpr uint32_t kTritonSamplerBytesPerLogitBeyondDtype = 13;
// Model runner v2's dummy sampler (vllm/v1/worker/gpu/sample/sampler.py): the model-dtype
// logits and one fp32 copy, activation bytes + 4 per logit; top-k/top-p are skipped in
// profiling and its Gumbel kernel writes only per-block partials. Derived from the code.
inline constexpr uint32_t kRunnerV2SamplerBytesPerLogitBeyondDtype = 4;
// MindIE's post-processing: model-dtype logits and an fp32 copy, 6 B per logit (an
// assumption: no MindIE log with an activation figure was found).
inline constexpr uint32_t kMindieSamplerBytesPerLogit = 6;

// What every rule reads.
struct Inputs {
  const ModelSpec& model;
  const DeviceSpec& device;
  const CapacityQuery& capacity;
  const EngineQuery& query;
  EngineVersion version;
  uint64_t total_bytes = 0;
  uint64_t max_model_len = 0;
};

Status vllm_v1_budget(const Inputs& in, EngineBudget* out);
Status vllm_v0_budget(const Inputs& in, EngineBudget* out);
Status vllm_ascend_budget(const Inputs& in, EngineBudget* out);
Status sglang_budget(const Inputs& in, EngineBudget* out);
Status mindie_budget(const Inputs& in, EngineBudget* out);

// Shared pieces of the rules.
void set_requested(const Inputs& in, double default_utilization, const std::string& name,
                   const std::string& source, EngineBudget* out);
SetAsideTerm weights_term(const Inputs& in, const std::string& source);
// The activation term of a profile run and the rows it sampled.
SetAsideTerm activation_term(const Inputs& in, const ProfileBatch& batch,
                             uint32_t sampler_bytes_per_logit, const std::string& source);
// The graph estimate at the budget's resolved largest capture size (graph_capture_size).
SetAsideTerm graph_term(const Inputs& in, const EngineBudget& budget, const std::string& name,
                        const std::string& source);
// What NCCL's set-up takes per worker at TP >= 2 (0 at TP1), before the first collective:
// kNvlinkNcclSetupBytes over NVLink, kNcclPerPeerBytes per peer over PCIe; `what` names it.
uint64_t nccl_setup_bytes(const Inputs& in, std::string* what);
// "1.23 GiB" style with the exact bytes: "1,320,702,443 B (1.23 GiB)".
std::string bytes_text(uint64_t bytes);
// The activation dtype: the weight dtype when 16-bit or wider, else fp16/bf16 (16 bits).
DType activation_dtype(DType weight_dtype);

}  // namespace kvsim::engine_rules
