#include "simulator/cost/execution_profile.h"

#include <algorithm>
#include <array>

#include "core/base/enum_names.h"
#include "core/base/units.h"

namespace kvsim::sim {
namespace {

constexpr EnumNames<AllReduceKernel, 3> kKernelNames{{{
    {AllReduceKernel::kNccl, "nccl"},
    {AllReduceKernel::kOneShot, "one-shot"},
    {AllReduceKernel::kTwoShot, "two-shot"},
}}};

constexpr EngineVersion kV1FullAndPiecewise{0, 11, 0};  // PR #25444: FULL_AND_PIECEWISE default
constexpr EngineVersion kV1AsyncScheduling{0, 14, 0};   // PR #27614: async scheduling default
constexpr EngineVersion kV0CustomAllReduce{0, 3, 0};    // PR #2192: custom all-reduce kernels
constexpr uint32_t kV1MaxCaptureTokens = 512;           // min(2 x max_num_seqs, 512)
constexpr uint32_t kV0MaxCaptureBatch = 256;            // _BATCH_SIZES_TO_CAPTURE's largest
constexpr double kCustomAllReduceMaxBytes = 8.0 * 1024 * 1024;

// vLLM V1's default max_num_seqs when the scenario gives none (arg_utils.py: 1024 on a large
// device, 256 elsewhere; the capture cap is 512 either way from 256 sequences up).
constexpr uint32_t kV1DefaultMaxNumSeqs = 256;

void vllm_v1_graphs(const EngineVersion& version, uint32_t max_num_seqs, ExecutionProfile* p) {
  const uint32_t seqs = max_num_seqs > 0 ? max_num_seqs : kV1DefaultMaxNumSeqs;
  p->max_graph_tokens = std::min(2 * seqs, kV1MaxCaptureTokens);
  p->piecewise_graphs = true;
  p->decode_graphs = version >= kV1FullAndPiecewise;
  p->rules.push_back(std::string(p->decode_graphs ? "FULL_AND_PIECEWISE: decode iterations one "
                                                    "full CUDA graph, others piecewise"
                                                  : "PIECEWISE: every iteration's kernels but "
                                                    "attention in CUDA graphs") +
                     " (CompilationConfig.cudagraph_mode, PR #25444 from 0.11)");
  p->rules.push_back("graphs up to " + std::to_string(p->max_graph_tokens) +
                     " tokens = min(2 x max_num_seqs, 512) (max_cudagraph_capture_size, "
                     "vllm/config/compilation.py); larger iterations eager");
}

// SGLang's cuda_graph_max_bs by GPU memory and TP (server_args.py _handle_gpu_memory_settings).
uint32_t sglang_max_graph_batch(const DeviceSpec& device, uint32_t tp) {
  const double gib = static_cast<double>(device.memory_bytes) / static_cast<double>(kGiB);
  const bool wide = tp >= 4;
  if (gib < 20) return 8;
  if (gib < 35) return wide ? 80 : 24;
  if (gib < 60) return wide ? 160 : 32;
  if (gib < 160) return wide ? 512 : 256;
  return 512;
}

bool custom_all_reduce_allowed(const EngineQuery& engine, const DeviceSpec& device, uint32_t tp) {
  const bool engine_has_it =
      engine.kind == EngineKind::kVllm || engine.kind == EngineKind::kSglang ||
      (engine.kind == EngineKind::kVllmV0 &&
       engine.version.value_or(newest_engine_version(engine.kind)) >= kV0CustomAllReduce);
  const bool group = tp == 2 || tp == 4 || tp == 6 || tp == 8;
  return engine_has_it && group && has_nvlink(device);
}

}  // namespace

std::string_view all_reduce_kernel_name(AllReduceKernel kernel) {
  return kKernelNames.name(kernel);
}

ExecutionProfile execution_profile(const EngineQuery& engine, const DeviceSpec& device, uint32_t tp,
                                   uint32_t max_num_seqs) {
  ExecutionProfile p;
  const EngineVersion version = engine.version.value_or(newest_engine_version(engine.kind));
  p.engine = std::string(engine_kind_name(engine.kind)) + " " + engine_version_name(version);
  p.tp = tp;
  switch (engine.kind) {
    case EngineKind::kVllm:
      vllm_v1_graphs(version, max_num_seqs, &p);
      p.overlap_cpu = version >= kV1AsyncScheduling;
      if (p.overlap_cpu) {
        p.rules.push_back(
            "async scheduling: the iteration's CPU work overlaps the GPU's, and a request "
            "arriving while a batch runs joins the batch after the next (PR #27614, default "
            "from 0.14; core.py step_with_batch_queue)");
      }
      break;
    case EngineKind::kVllmV0:
      p.max_graph_tokens = kV0MaxCaptureBatch;
      p.rules.push_back(
          "decode iterations of up to 256 sequences as CUDA graphs "
          "(_BATCH_SIZES_TO_CAPTURE), others eager");
      break;
    case EngineKind::kSglang:
      p.max_graph_tokens = sglang_max_graph_batch(device, tp);
      p.rules.push_back("decode iterations of up to " + std::to_string(p.max_graph_tokens) +
                        " sequences as CUDA graphs (cuda_graph_max_bs, server_args.py), "
                        "prefill eager");
      break;
    case EngineKind::kVllmAscend:
    case EngineKind::kMindie:
      p.rules.push_back("no execution rule for this engine: decode iterations as graphs");
      break;
  }
  if (engine.enforce_eager) {
    p.decode_graphs = p.other_graphs = p.piecewise_graphs = false;
    p.rules.push_back("enforce_eager: no CUDA graphs");
  }
  if (tp > 1) {
    p.custom_all_reduce = custom_all_reduce_allowed(engine, device, tp);
    p.rules.push_back(p.custom_all_reduce
                          ? "all-reduce: custom one-shot / two-shot kernel under 8 MiB over "
                            "NVLink (custom_all_reduce.py should_custom_ar, "
                            "custom_all_reduce.cuh), NCCL beyond"
                          : "all-reduce: NCCL (no custom all-reduce for this engine, group or "
                            "link)");
  }
  return p;
}

ExecutionProfile with_cuda_graphs(ExecutionProfile p, CudaGraphs mode) {
  if (mode == CudaGraphs::kEngine) return p;
  ExecutionProfile generic;
  generic.tp = p.tp;
  generic.decode_graphs = mode != CudaGraphs::kNone;
  generic.other_graphs = mode == CudaGraphs::kAll;
  generic.rules.push_back("cuda_graphs " + std::string(cuda_graphs_name(mode)) +
                          " (cost_model.cuda_graphs): a generic execution in place of " +
                          (p.engine.empty() ? std::string("the engine's") : p.engine + "'s") +
                          " (that graph rule, NCCL all-reduces, the CPU's work not overlapped)");
  return generic;
}

AllReduceKernel all_reduce_kernel(const ExecutionProfile& p, double bytes) {
  if (!p.custom_all_reduce || bytes >= kCustomAllReduceMaxBytes) return AllReduceKernel::kNccl;
  const bool one_shot =
      p.tp == 2 || (p.tp <= 4 && bytes < 512.0 * 1024) || (p.tp <= 8 && bytes < 256.0 * 1024);
  return one_shot ? AllReduceKernel::kOneShot : AllReduceKernel::kTwoShot;
}

}  // namespace kvsim::sim
