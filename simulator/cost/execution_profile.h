// ExecutionProfile: how an engine runs an iteration's kernels, beyond the kernels themselves
// (issue 38's engine execution profiles): which iterations run as CUDA graphs and which kernel
// a tensor-parallel all-reduce uses. The operator cost model (operator_cost_model.h) times each
// kernel from its fit; the profile decides its launch cost and the all-reduce's algorithm.
//
// The rules, each following the engine's code (docs/cost_model/microbench/README.md §1 quotes
// them with their commits):
//   vLLM V1 >= 0.11   FULL_AND_PIECEWISE: a uniform decode iteration is one full CUDA graph,
//                     any other runs piecewise (every kernel but attention inside graphs)
//                     (CompilationConfig.cudagraph_mode's default, PR #25444)
//   vLLM V1 0.8-0.10  PIECEWISE for every iteration (attention eager)
//   vLLM V1           graphs only up to max_cudagraph_capture_size = min(2 x max_num_seqs, 512)
//                     tokens; larger iterations run eager (vllm/config/compilation.py)
//   vLLM V1 >= 0.14   async scheduling: the CPU's per-iteration work (schedule, prepare inputs,
//                     process outputs) overlaps the GPU's, so an iteration takes the longer of
//                     the two, not their sum (PR #27614 "Enable async scheduling by default",
//                     merged in the week to 2026-01-02; the first release after it is 0.14.0);
//                     the next batch is scheduled while one runs, so a request arriving then
//                     joins the batch after the next (EngineConfig::async_scheduling)
//   vLLM V0           decode iterations of up to 256 sequences as graphs (_BATCH_SIZES_TO_CAPTURE)
//   SGLang            decode iterations up to cuda_graph_max_bs (256 below TP 4 on an 80-90 GiB
//                     GPU, 512 from TP 4; server_args.py _handle_gpu_memory_settings), prefill
//                     eager (piecewise graphs are opt-in)
//   enforce_eager     no graphs
//   all-reduce        vLLM (V0 from 0.3, PR #2192; V1) and SGLang: the custom all-reduce when
//                     every rank of the TP group is on NVLink (has_nvlink), the group is 2, 4, 6
//                     or 8 ranks and the tensor is under 8 MiB (custom_all_reduce.py
//                     should_custom_ar); one-shot at 2 ranks, below 512 KiB at <= 4 and below
//                     256 KiB at <= 8 ranks, two-shot otherwise (custom_all_reduce.cuh); NCCL
//                     beyond. Other engines and links: NCCL (HCCL on Ascend, the same fit).
// An engine kvsim has no rule for (vllm-ascend, MindIE) keeps cost_model.cuda_graphs' decode
// rule and NCCL, as before the profiles.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine/engine_memory.h"
#include "core/model/device_spec.h"
#include "simulator/cost/cost_model_config.h"

namespace kvsim::sim {

enum class AllReduceKernel : uint8_t { kNccl, kOneShot, kTwoShot };
std::string_view all_reduce_kernel_name(AllReduceKernel kernel);  // "nccl", "one-shot", ...

struct ExecutionProfile {
  std::string engine;             // "vllm 0.15.1"; empty: no engine (the cost model's rules)
  bool decode_graphs = true;      // an iteration of decodes only runs as one full graph
  bool other_graphs = false;      // every other iteration runs as one full graph
  bool piecewise_graphs = false;  // iterations not in a full graph: all but attention in graphs
  uint32_t max_graph_tokens = 0;  // iterations with more tokens run eager; 0: no limit
  bool custom_all_reduce = false;
  bool overlap_cpu = false;  // async scheduling: the CPU's work runs while the GPU computes
  uint32_t tp = 1;
  std::vector<std::string> rules;  // each rule that applied and the engine code it follows
};

// The profile of `engine` (its kind, version, enforce_eager) on `device` with a TP group of
// `tp`, its scheduler allowing `max_num_seqs` sequences (0: the engine's default).
ExecutionProfile execution_profile(const EngineQuery& engine, const DeviceSpec& device, uint32_t tp,
                                   uint32_t max_num_seqs);
// The profile cost_model.cuda_graphs asks for: kEngine keeps the engine's; none, decode or all
// is a generic execution (that graph rule, NCCL all-reduces, the CPU's work serial), as kvsim ran
// every engine before the profiles, for measurements of an engine kvsim has no profile for.
ExecutionProfile with_cuda_graphs(ExecutionProfile profile, CudaGraphs mode);
// The kernel an all-reduce of `bytes` per rank runs.
AllReduceKernel all_reduce_kernel(const ExecutionProfile& profile, double bytes);

}  // namespace kvsim::sim
