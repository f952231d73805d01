// OperatorFit: the fitted parameters of the operator cost model (simulator/cost/
// operator_cost_model.h) for one kind of device: the shape of every efficiency curve, the
// kernels' fixed latencies, the collectives' latency and bus bandwidth, and the engine's
// launch and per-iteration overheads. Efficiencies are fractions of the device's peaks (its
// preset), so one fit serves every device of its chip with that chip's figures.
//
// The built-in fits (operator_fits.cc) and the data each was fitted to (docs/cost_model.md):
//   a100   fitted to Vidur's A100 profiles (../shared/calibration/vidur/compute/a100: GEMMs and
//          elementwise ops of 8 models at TP 1-8; the Llama-2-70B TP2 attention profile;
//          network/a100_dgx all-reduce) by docs/cost_model/fit_operators.py
//   h100   the same for H100 (compute/h100, network/h100_dgx); attention: no H100 profile
//          exists, the A100 curves (fractions of peak) are used — an estimate
//   h200   the h100 fit (the same GH100 chip; its own bandwidth comes from the preset)
//   ascend estimates: the a100 curves on the chip's peaks, collectives scaled by HCCS
//          bandwidth (no Ascend profile exists; docs/cost_model.md gives the sources)
// Launch and iteration overheads are not in any profile (Vidur times GPU kernels only):
// documented estimates with their sources, in operator_fits.cc.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/model/device_spec.h"

namespace kvsim::sim {

// A matrix multiply of M tokens (rows) by a K x N weight:
//   t = floor_s + sqrt(tc^2 + tm^2)       (a smooth maximum of the two bounds)
//   tc = 2 M K N / (peak x ec(M)),  ec(M) = compute_efficiency_max x M / (M + compute_half_tokens)
//   tm = bytes / (bandwidth x memory_efficiency),  bytes = weights + activations in and out
struct GemmFit {
  double floor_s = 0;                 // fixed kernel time, s
  double compute_efficiency_max = 0;  // plateau of achieved / peak FLOP/s
  double compute_half_tokens = 0;     // M at which half the plateau is reached
  double memory_efficiency = 0;       // achieved / peak bandwidth while weight-bound
};

// A memory-bound kernel: t = sqrt(floor_s^2 + (bytes / (bandwidth x memory_efficiency))^2).
struct ElementwiseFit {
  double floor_s = 0;
  double memory_efficiency = 0;
};

// Decode attention over the paged KV cache: t = floor_s + max(tc, tm) for the batch's decodes
// (one kernel), tm = KV bytes read / (bandwidth x memory_efficiency), tc at the prefill's
// cross efficiency (GQA decode stays memory-bound).
struct DecodeAttentionFit {
  double floor_s = 0;
  double memory_efficiency = 0;
};

// Prefill attention of chunks of q new tokens after c cached ones (one kernel for the batch):
//   t = floor_s + sum over chunks of F_cross / (peak x e_cross(q)) + F_causal / (peak x
//   e_causal(q)) F_cross = flops per pair x q x c (new x cached), F_causal = flops per pair x q (q
//   + 1) / 2 e(q) = e_max x q / (q + half_tokens)
struct PrefillAttentionFit {
  double floor_s = 0;
  double cross_efficiency_max = 0;
  double cross_half_tokens = 0;
  double causal_efficiency_max = 0;
  double causal_half_tokens = 0;
};

// An all-reduce over n devices: t = latency_s + 2 (n - 1) / n x bytes / bus bandwidth
// (NCCL picks ring or tree; the fit holds what it achieved).
struct CollectiveFit {
  double latency_s = 0;
  double bus_gbps = 0;  // GB/s
};
// The group sizes the fits hold, one CollectiveFit each (OperatorFit::all_reduce).
inline constexpr std::array<uint32_t, 3> kCollectiveGroupSizes = {2, 4, 8};

struct OperatorFit {
  std::string name;       // "a100", "h100", "h200", "ascend"
  std::string fitted_to;  // the data, one line
  GemmFit gemm;
  ElementwiseFit norm;          // RMSNorm / LayerNorm
  ElementwiseFit rope;          // rotary embedding of q and k
  ElementwiseFit activation;    // SiLU x up (gated) or GELU
  ElementwiseFit residual_add;  // also the KV-cache write and sampling (no profile of their own)
  ElementwiseFit embedding;     // token embedding gather
  DecodeAttentionFit decode_attention;
  PrefillAttentionFit prefill_attention;
  std::array<CollectiveFit, 3> all_reduce;  // NCCL, for 2, 4 and 8 devices (kCollectiveGroupSizes)
  // vLLM's and SGLang's custom all-reduce over NVLink (simulator/cost/execution_profile.h):
  // one-shot t = latency + (n - 1) bytes / bus, two-shot t = latency + 2 (n - 1) / n bytes / bus.
  CollectiveFit custom_one_shot, custom_two_shot;
  double launch_overhead_s = 0;        // per kernel, eager launches
  double graph_launch_overhead_s = 0;  // per kernel inside a CUDA graph
  double iteration_overhead_s = 0;     // per iteration: scheduling, inputs, outputs (CPU)
};

// The built-in fits, by name.
std::vector<std::string> operator_fit_names();
StatusOr<OperatorFit> find_operator_fit(std::string_view name);
// The fit for a device: by its preset name (a100-80g -> a100, h100-sxm -> h100, h200 -> h200,
// ascend-* -> ascend), else by vendor (nvidia -> a100, huawei -> ascend), else a100.
OperatorFit operator_fit_for_device(const DeviceSpec& device);

// The all-reduce fit for a group of n > 1 devices: the entry for the smallest group size >= n,
// else the largest (groups above 8 use the 8-device figures).
const CollectiveFit& collective_for(const OperatorFit& fit, uint32_t num_devices);

// The fit's parameters by dotted name ("gemm.memory_efficiency", "launch_overhead_s", ...),
// for calibration files and `cost_model.parameters`: names in a fixed order, each with its
// field in a fit.
struct FitParameter {
  std::string_view name;
  double& (*field)(OperatorFit&);
  double min, max;  // the valid range
};
const std::vector<FitParameter>& fit_parameters();
std::vector<std::string> fit_parameter_names();
// The parameter called `name`; an unknown name is an error listing the valid ones.
StatusOr<const FitParameter*> find_fit_parameter(std::string_view name);
// Sets parameter `name`; an unknown name lists the valid ones, a value out of range is an
// error naming the range.
Status set_fit_parameter(OperatorFit* fit, std::string_view name, double value);
double get_fit_parameter(const OperatorFit& fit, std::string_view name);

}  // namespace kvsim::sim
