#include "simulator/cost/operator_fits.h"

#include <algorithm>

#include "core/base/names.h"

namespace kvsim::sim {
namespace {

// Launch and per-iteration overheads: no profile holds them (Vidur times GPU kernels only),
// so they are documented estimates, the same for every fit:
//   launch: NVIDIA, "Getting Started with CUDA Graphs" (developer.nvidia.com/blog/cuda-graphs/,
//   2019): a 2.9 us kernel takes 3.8 us per kernel launched back to back into a stream and
//   3.4 us inside a graph, i.e. 0.9 us and 0.5 us of launch gap per kernel.
//   iteration: Vidur's CPU-overhead profile of vLLM (github.com/microsoft/vidur at commit
//   e2d00e9, data/profiling/a100/cpu_overheads.csv, CodeLlama-34B TP2 at batch 8, medians):
//   schedule 0.04 + prepare inputs 0.14 + process outputs 0.32 ms = 0.5 ms. Sampling and the
//   LM head are operators of their own.
constexpr double kLaunchOverheadS = 0.9e-6;
constexpr double kGraphLaunchOverheadS = 0.5e-6;
constexpr double kIterationOverheadS = 0.5e-3;

// Attention fitted to the one attention profile there is (A100, Llama-2-70B geometry, TP2,
// FlashAttention): docs/cost_model/fit_operators.py. Efficiencies are fractions of peak, so
// the H100 fit reuses them (no H100 attention profile exists).
constexpr DecodeAttentionFit kDecodeAttention{1.5183e-05, 0.7629};
constexpr PrefillAttentionFit kPrefillAttention{1.1836e-05, 0.5102, 35.9, 0.2225, 667.9};

// vLLM's custom all-reduce kernels on H100 over NVLink, fitted by
// docs/cost_model/fit_custom_allreduce.py to vLLM PRs #24111 and #24532's
// benchmark_device_communicators rows (docs/cost_model/microbench, TP 2-6, 0.5-4 MB; residuals
// median 6.0% and 7.2%). The A100 has 600 GB/s of NVLink where the H100 has 900: its buses are
// scaled by 2/3, an estimate (no A100 row).
constexpr CollectiveFit kH100CustomOneShot{4.7625e-06, 323.6};
constexpr CollectiveFit kH100CustomTwoShot{1.2602e-05, 226.6};
constexpr double kA100OverH100Nvlink = 600.0 / 900.0;

OperatorFit with_overheads(OperatorFit fit) {
  fit.decode_attention = kDecodeAttention;
  fit.prefill_attention = kPrefillAttention;
  fit.launch_overhead_s = kLaunchOverheadS;
  fit.graph_launch_overhead_s = kGraphLaunchOverheadS;
  fit.iteration_overhead_s = kIterationOverheadS;
  return fit;
}

// docs/cost_model/fit_operators.py on ../shared/calibration/vidur (its fit_params.inc.txt);
// residuals in docs/cost_model.md. Llama-2-7B's compute profiles are held out of the GEMM and
// elementwise fits: the tests check the fits against them.
OperatorFit a100_fit() {
  OperatorFit f;
  f.name = "a100";
  f.fitted_to =
      "Vidur A100 profiles (7 models, Llama-2-7B held out, TP 1-8; Llama-2-70B TP2 attention; "
      "a100_dgx all-reduce)";
  f.gemm = {6.7952e-06, 0.7287, 40.83, 0.9054};
  f.norm = {5.3842e-06, 0.3609};
  f.rope = {3.7429e-06, 0.4077};
  f.activation = {4.4798e-06, 0.4808};
  f.residual_add = {2.3561e-06, 0.9029};
  f.embedding = {5.2879e-06, 0.1500};
  f.all_reduce = {{{4.4205e-05, 170.3}, {3.7948e-05, 159.7}, {4.3329e-05, 151.6}}};
  f.custom_one_shot = {kH100CustomOneShot.latency_s,
                       kH100CustomOneShot.bus_gbps * kA100OverH100Nvlink};
  f.custom_two_shot = {kH100CustomTwoShot.latency_s,
                       kH100CustomTwoShot.bus_gbps * kA100OverH100Nvlink};
  return with_overheads(f);
}

OperatorFit h100_fit() {
  OperatorFit f;
  f.name = "h100";
  f.fitted_to =
      "Vidur H100 profiles (5 models, Llama-2-7B held out, TP 1-8; h100_dgx all-reduce); "
      "attention: the A100 fit";
  f.gemm = {5.9894e-06, 0.7271, 82.18, 1.0000};
  f.norm = {4.7505e-06, 0.3837};
  f.rope = {3.0170e-06, 0.4506};
  f.activation = {3.3721e-06, 0.5519};
  f.residual_add = {1.9794e-06, 1.0000};
  f.embedding = {4.3123e-06, 0.1775};
  f.all_reduce = {{{2.6398e-05, 327.7}, {3.3035e-05, 388.6}, {2.9728e-05, 341.4}}};
  f.custom_one_shot = kH100CustomOneShot;
  f.custom_two_shot = kH100CustomTwoShot;
  return with_overheads(f);
}

OperatorFit h200_fit() {
  OperatorFit f = h100_fit();
  f.name = "h200";
  f.fitted_to = "the H100 fit (the same GH100 chip; bandwidth from the H200 preset)";
  return f;
}

// No Ascend profile exists: the A100 curves (fractions of the chip's own peaks, from its
// preset) and the A100's collectives with the bus bandwidth scaled by the device's
// interconnect over the A100's 600 GB/s (operator_fit_for_device). Estimates.
OperatorFit ascend_fit() {
  OperatorFit f = a100_fit();
  f.name = "ascend";
  f.fitted_to = "estimate: the A100 fit on the chip's peaks, collectives scaled by HCCS bandwidth";
  return f;
}

constexpr double kA100InterconnectGbps = 600;

struct NamedFit {
  std::string_view name;
  OperatorFit (*make)();
};
constexpr NamedFit kFits[] = {
    {"a100", a100_fit}, {"h100", h100_fit}, {"h200", h200_fit}, {"ascend", ascend_fit}};

#define KVSIM_FIT_FIELD_NAMED(name, path, lo, hi)                  \
  FitParameter {                                                   \
    name, [](OperatorFit& f) -> double& { return f.path; }, lo, hi \
  }
#define KVSIM_FIT_FIELD(path, lo, hi) KVSIM_FIT_FIELD_NAMED(#path, path, lo, hi)

}  // namespace

std::vector<std::string> operator_fit_names() {
  std::vector<std::string> names;
  for (const NamedFit& fit : kFits) names.emplace_back(fit.name);
  return names;
}

StatusOr<OperatorFit> find_operator_fit(std::string_view name) {
  for (const NamedFit& fit : kFits) {
    if (fit.name == name) return fit.make();
  }
  return Status::invalid_argument(
      unknown_name_message("operator cost fit", name, operator_fit_names()));
}

OperatorFit operator_fit_for_device(const DeviceSpec& device) {
  const std::string& n = device.name;
  if (n.rfind("h200", 0) == 0) return h200_fit();
  if (n.rfind("h100", 0) == 0) return h100_fit();
  if (n.rfind("a100", 0) == 0) return a100_fit();
  if (n.rfind("ascend", 0) == 0 || device.vendor == "huawei") {
    OperatorFit fit = ascend_fit();
    for (CollectiveFit& c : fit.all_reduce) {
      c.bus_gbps *= device.interconnect_gbps / kA100InterconnectGbps;
    }
    return fit;
  }
  return a100_fit();
}

const CollectiveFit& collective_for(const OperatorFit& fit, uint32_t num_devices) {
  for (size_t i = 0; i < kCollectiveGroupSizes.size(); ++i) {
    if (num_devices <= kCollectiveGroupSizes[i]) return fit.all_reduce[i];
  }
  return fit.all_reduce.back();
}

const std::vector<FitParameter>& fit_parameters() {
  static const std::vector<FitParameter> kParameters = {
      KVSIM_FIT_FIELD(gemm.floor_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD(gemm.compute_efficiency_max, 1e-3, 1.0),
      KVSIM_FIT_FIELD(gemm.compute_half_tokens, 0.0, 1e6),
      KVSIM_FIT_FIELD(gemm.memory_efficiency, 1e-3, 1.0),
      KVSIM_FIT_FIELD(norm.floor_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD(norm.memory_efficiency, 1e-3, 1.0),
      KVSIM_FIT_FIELD(rope.floor_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD(rope.memory_efficiency, 1e-3, 1.0),
      KVSIM_FIT_FIELD(activation.floor_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD(activation.memory_efficiency, 1e-3, 1.0),
      KVSIM_FIT_FIELD(residual_add.floor_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD(residual_add.memory_efficiency, 1e-3, 1.0),
      KVSIM_FIT_FIELD(embedding.floor_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD(embedding.memory_efficiency, 1e-3, 1.0),
      KVSIM_FIT_FIELD(decode_attention.floor_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD(decode_attention.memory_efficiency, 1e-3, 1.0),
      KVSIM_FIT_FIELD(prefill_attention.floor_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD(prefill_attention.cross_efficiency_max, 1e-3, 1.0),
      KVSIM_FIT_FIELD(prefill_attention.cross_half_tokens, 0.0, 1e6),
      KVSIM_FIT_FIELD(prefill_attention.causal_efficiency_max, 1e-3, 1.0),
      KVSIM_FIT_FIELD(prefill_attention.causal_half_tokens, 0.0, 1e6),
      KVSIM_FIT_FIELD_NAMED("all_reduce_2.latency_s", all_reduce[0].latency_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD_NAMED("all_reduce_2.bus_gbps", all_reduce[0].bus_gbps, 1e-3, 1e5),
      KVSIM_FIT_FIELD_NAMED("all_reduce_4.latency_s", all_reduce[1].latency_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD_NAMED("all_reduce_4.bus_gbps", all_reduce[1].bus_gbps, 1e-3, 1e5),
      KVSIM_FIT_FIELD_NAMED("all_reduce_8.latency_s", all_reduce[2].latency_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD_NAMED("all_reduce_8.bus_gbps", all_reduce[2].bus_gbps, 1e-3, 1e5),
      KVSIM_FIT_FIELD_NAMED("custom_one_shot.latency_s", custom_one_shot.latency_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD_NAMED("custom_one_shot.bus_gbps", custom_one_shot.bus_gbps, 1e-3, 1e5),
      KVSIM_FIT_FIELD_NAMED("custom_two_shot.latency_s", custom_two_shot.latency_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD_NAMED("custom_two_shot.bus_gbps", custom_two_shot.bus_gbps, 1e-3, 1e5),
      KVSIM_FIT_FIELD(launch_overhead_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD(graph_launch_overhead_s, 0.0, 1e-2),
      KVSIM_FIT_FIELD(iteration_overhead_s, 0.0, 10.0),
  };
  return kParameters;
}

std::vector<std::string> fit_parameter_names() {
  std::vector<std::string> names;
  for (const FitParameter& p : fit_parameters()) names.emplace_back(p.name);
  return names;
}

StatusOr<const FitParameter*> find_fit_parameter(std::string_view name) {
  for (const FitParameter& p : fit_parameters()) {
    if (p.name == name) return &p;
  }
  return Status::invalid_argument(
      unknown_name_message("cost-model parameter", name, fit_parameter_names()));
}

Status set_fit_parameter(OperatorFit* fit, std::string_view name, double value) {
  KVSIM_ASSIGN_OR_RETURN(const FitParameter* p, find_fit_parameter(name));
  if (!(value >= p->min && value <= p->max)) {
    return Status::invalid_argument("parameter '" + std::string(name) +
                                    "' = " + std::to_string(value) + " is outside [" +
                                    std::to_string(p->min) + ", " + std::to_string(p->max) + "]");
  }
  p->field(*fit) = value;
  return Status::ok();
}

double get_fit_parameter(const OperatorFit& fit, std::string_view name) {
  const auto p = find_fit_parameter(name);
  if (!p.is_ok()) return 0;
  OperatorFit copy = fit;
  return (*p)->field(copy);
}

}  // namespace kvsim::sim
