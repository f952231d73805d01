// CostModelConfig: the scenario's `cost_model:` section — which cost model, and its settings.
//
//   kind: operators   (the default) simulator/cost/operator_cost_model.h: per-operator times
//                     from efficiency curves fitted to measured kernel profiles
//   kind: roofline    simulator/cost/roofline_cost_model.h: max(compute, memory) + fixed
//                     costs
//   kind: profile     simulator/cost/profile_cost_model.h: Vidur's per-operator profiles
//                     (a folder) interpolated, composed as Vidur composes them
//   kind: table       simulator/cost/calibration_table.h: measured iteration times by shape
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/config/config_node.h"

namespace kvsim::sim {

enum class CostModelKind : uint8_t { kOperators, kRoofline, kProfile, kTable };
std::string_view cost_model_kind_name(CostModelKind kind);
StatusOr<CostModelKind> parse_cost_model_kind(std::string_view name);

enum class CudaGraphs : uint8_t {
  kEngine,  // "engine": the engine's execution profile decides (execution_profile.h)
  // A generic execution (NCCL all-reduces, the CPU's work serial) with these graphs:
  kNone,    // "none": every iteration launches its kernels eagerly
  kDecode,  // "decode": decode-only iterations run as a CUDA graph (vLLM V0's rule)
  kAll,     // "all": every iteration does
};
std::string_view cuda_graphs_name(CudaGraphs mode);
StatusOr<CudaGraphs> parse_cuda_graphs(std::string_view name);

// One fitted parameter set by name (operator_fits.h: fit_parameters), with where it was given.
struct FitOverride {
  std::string name;  // "gemm.memory_efficiency"
  double value = 0;
  SourceMark mark;
};

// A client's time beyond the engine's, per request: HTTP, chat template and tokenization, the
// hand-over to the engine core, and the first (and last) chunk's way back (detokenize, SSE).
// Fitted to vLLM PR #54628 (github.com/vllm-project/vllm/pull/54628, "Backend parity": client
// TTFT less vLLM's own vllm:time_to_first_token_seconds, 512-token prompts, 5 runs over the
// completions, chat and responses APIs: 8.4-12.2 ms, median 11.0 ms); docs/cost_model.md.
inline constexpr double kDefaultFrontendS = 11.0e-3;

struct CostModelConfig {
  CostModelKind kind = CostModelKind::kOperators;
  // every kind: what a client sees beyond the engine (kDefaultFrontendS); the summary's TTFT
  // and E2E add it, requests.csv keeps the engine's times beside the client's.
  double frontend_s = kDefaultFrontendS;
  // roofline:
  double compute_efficiency = 0.6;       // achieved / peak FLOP/s (prefill MFU of vLLM ~0.5-0.7)
  double bandwidth_efficiency = 0.8;     // achieved / peak memory bandwidth (decode)
  double interconnect_efficiency = 0.7;  // achieved / peak device-to-device bandwidth
  double iteration_overhead_s = 1e-3;    // fixed time per iteration, seconds
  double allreduce_latency_s = 10e-6;    // fixed time per all-reduce (tp > 1), seconds
  // operators:
  std::string fit;  // built-in fit (a100, h100, h200, ascend); "" = by device
  CudaGraphs cuda_graphs = CudaGraphs::kEngine;
  std::vector<FitOverride> parameters;  // cost_model.parameters, applied after calibration
  // Under expert parallelism (ep > 1): the slowest expert rank's load over the expected
  // maximum of uniform routing (simulator/cost/expert_parallel.h); 1.0 = uniform routing, an
  // EPLB-measured max/mean skew otherwise. YAML cost_model.expert_imbalance, >= 1.
  double expert_imbalance = 1.0;
  // operators: a YAML of fitted parameters (kvsim calibrate); table: the CSV of times. A
  // scenario that gives a .csv calibration without a kind means kind: table.
  std::string calibration;
  // profile:
  std::string profiles;  // a Vidur profile folder (compute/, network/)
  std::string topology;  // its network/<topology>; "" = <device>_dgx
};

}  // namespace kvsim::sim
