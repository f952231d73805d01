// OperatorCostModel::explain: the iteration's operators as kvsim cost prints them — time,
// bound, share and the formula with the numbers of one instance.
#include <cstdio>
#include <string>

#include "simulator/cost/operator_cost_model.h"

namespace kvsim::sim {
namespace {

using Terms = OperatorCostModel::Terms;
using Form = OperatorCostModel::Form;

std::string num(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}
std::string us(double s) { return num("%.2f us", s * 1e6); }
std::string mb(double bytes) { return num("%.3f MB", bytes / 1e6); }
std::string gflop(double flops) { return num("%.3f GFLOP", flops / 1e9); }

std::string bound_of(const Terms& t) {
  switch (t.form) {
    case Form::kFixed:
      return "cpu";
    case Form::kCollective:
    case Form::kAllToAll:
      return t.memory_s > t.floor_s + t.launch_s ? "interconnect" : "latency";
    default:
      break;
  }
  const double work =
      t.form == Form::kPrefillAttention ? t.compute_s : std::max(t.compute_s, t.memory_s);
  if (work < t.floor_s + t.launch_s) return "latency";
  return t.compute_s > t.memory_s ? "compute" : "memory";
}

// DeepEP's kernels (simulator/cost/expert_parallel.h): low-latency at its table's logical
// bandwidth, normal over the slower of the NVLink and RDMA shares.
std::string all_to_all_formula(const Terms& t) {
  const std::string gbps = num("%.2f GB/s", t.bandwidth_gbps);
  if (t.kernel == "low_latency") {
    return "low_latency: latency " + us(t.floor_s) + " + " + mb(t.bytes) + " / " + gbps + " = " +
           us(t.memory_s);
  }
  return "normal: latency " + us(t.floor_s) + " + " + mb(t.bytes) + ", NVLink " +
         mb(t.nvlink_bytes) + " RDMA " + mb(t.rdma_bytes) + " leave, the slower at " + gbps +
         " = " + us(t.memory_s);
}

std::string formula(const Terms& t, const OperatorInputs& in) {
  const std::string peak = num("%.1f TFLOP/s", in.peak_flops / 1e12);
  const std::string bw = num("%.0f GB/s", in.bandwidth_bps / 1e9);
  const std::string launch = " + launch " + us(t.launch_s);
  switch (t.form) {
    case Form::kGemm:
      return num("M=%.0f", t.m) + ": floor " + us(t.floor_s) + " + sqrt(tc^2 + tm^2)" + launch +
             "; tc = " + gflop(t.flops) + " / (" + peak + " x ec " + num("%.3f", t.efficiency) +
             ") = " + us(t.compute_s) + ", tm = " + mb(t.bytes) + " / (" + bw +
             " x em) = " + us(t.memory_s);
    case Form::kElementwise:
      return "sqrt(floor " + us(t.floor_s) + "^2 + (" + mb(t.bytes) + " / (" + bw + " x " +
             num("%.3f", t.efficiency) + ") = " + us(t.memory_s) + ")^2)" + launch;
    case Form::kDecodeAttention:
      return num("%.0f decodes", t.m) + ": floor " + us(t.floor_s) + " + max(" + gflop(t.flops) +
             " / (" + peak + " x " + num("%.3f", t.efficiency) + ") = " + us(t.compute_s) +
             ", KV " + mb(t.bytes) + " / (" + bw + " x e) = " + us(t.memory_s) + ")" + launch;
    case Form::kPrefillAttention:
      return num("%.0f chunks", t.m) + ": floor " + us(t.floor_s) + " + sum of F / (" + peak +
             " x e(q)) = " + gflop(t.flops) + " in " + us(t.compute_s) + " (achieved " +
             num("%.3f", t.efficiency) + " of peak)" + launch;
    case Form::kCollective:
      return std::string(t.kernel.empty() ? "" : std::string(t.kernel) + ": ") + "latency " +
             us(t.floor_s) + " + " + mb(t.bytes) + " on the bus = " + us(t.memory_s) + launch;
    case Form::kAllToAll:
      return all_to_all_formula(t) + launch;
    case Form::kFixed:
      return t.kernel.empty() ? "fixed per iteration (scheduling, inputs, outputs)"
                              : "CPU work " + us(t.floor_s) +
                                    " per iteration, overlapped with the GPU's (async "
                                    "scheduling): only what exceeds it counts";
  }
  return "";
}

}  // namespace

CostBreakdown OperatorCostModel::explain(const BatchShape& batch) const {
  CostBreakdown out;
  double total = 0;
  for (const Terms& t : terms(batch)) {
    OperatorTime op;
    op.name = std::string(t.name);
    op.bound = bound_of(t);
    op.count = static_cast<uint64_t>(t.count);
    op.time_s = t.count * t.time_s;
    op.flops = t.count * t.flops;
    op.bytes = t.count * t.bytes;
    if (t.form == Form::kAllToAll) op.kernel = std::string(t.kernel);
    op.formula = num("%.0f x ", t.count) + us(t.time_s) + " = " + formula(t, inputs_);
    total += t.count * t.time_s;
    out.operators.push_back(std::move(op));
  }
  out.total_s = total;
  return out;
}

}  // namespace kvsim::sim
