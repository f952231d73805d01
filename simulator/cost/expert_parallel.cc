#include "simulator/cost/expert_parallel.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/base/check.h"
#include "core/base/units.h"

namespace kvsim::sim {
namespace {

// DeepEP's tables (expert_parallel.h), GB/s.
constexpr double kH800NvlinkOneWayGbps = 200;  // 400 GB/s NVLink both ways
constexpr double kNormalNvlinkDispatchGbps = 153;
constexpr double kNormalNvlinkCombineGbps = 158;
struct EpRow {
  uint32_t ep;
  double dispatch_gbps;
  double combine_gbps;
};
constexpr std::array<EpRow, 3> kNormalRdma = {{{16, 43, 43}, {32, 58, 57}, {64, 51, 50}}};
constexpr std::array<EpRow, 6> kLowLatency = {
    {{8, 98, 127}, {16, 63, 74}, {32, 48, 53}, {64, 43, 46}, {128, 39, 39}, {256, 39, 40}}};
// Low-latency dispatch: fp8 values and one fp32 scale per 128 channels.
constexpr double kFp8Bytes = 1;
constexpr double kScaleBytes = 4;
constexpr double kScaleChannels = 128;

// The row at or above `ep`, the last past the table.
template <size_t N>
const EpRow& row_for(const std::array<EpRow, N>& rows, uint32_t ep) {
  for (const EpRow& r : rows) {
    if (ep <= r.ep) return r;
  }
  return rows.back();
}

double gbps_of(const EpRow& r, AllToAll kind) {
  return kind == AllToAll::kDispatch ? r.dispatch_gbps : r.combine_gbps;
}

double standard_normal_pdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI); }
double standard_normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace

std::string_view deepep_mode_name(DeepEpMode mode) {
  return mode == DeepEpMode::kNormal ? "normal" : "low_latency";
}

DeepEpMode deepep_mode(bool has_prefill) {
  return has_prefill ? DeepEpMode::kNormal : DeepEpMode::kLowLatency;
}

double expected_max_standard_normal(uint32_t n) {
  KVSIM_CHECK(n >= 1, "the maximum of no variables");
  if (n == 1) return 0;
  // Simpson's rule on [-12, 12]: the integrand is below 1e-30 outside.
  constexpr int kSteps = 4800;
  constexpr double kLow = -12, kHigh = 12;
  const double h = (kHigh - kLow) / kSteps;
  double sum = 0;
  for (int i = 0; i <= kSteps; ++i) {
    const double x = kLow + i * h;
    const double f = x * n * standard_normal_pdf(x) * std::pow(standard_normal_cdf(x), n - 1);
    const double weight = (i == 0 || i == kSteps) ? 1 : (i % 2 == 1 ? 4 : 2);
    sum += weight * f;
  }
  return sum * h / 3;
}

double expected_max_rank_rows(double tokens, uint32_t experts, uint32_t top_k, uint32_t ep,
                              double max_normal) {
  KVSIM_CHECK(ep >= 1 && experts >= 1 && experts % ep == 0, "ep must divide the experts");
  const double e = experts;
  const double k = std::min<double>(top_k, e);
  const double n = ep;
  const double mean = tokens * k / n;
  if (ep == 1) return mean;
  const double finite = e > 1 ? (e - k) / (e - 1) : 0;
  const double sigma = std::sqrt(tokens * k * (1 / n) * (1 - 1 / n) * finite);
  const double cap = tokens * std::min(k, e / n);
  return std::min(cap, mean + sigma * std::sqrt(n / (n - 1)) * max_normal);
}

AllToAllCost all_to_all_cost(AllToAll kind, DeepEpMode mode, const AllToAllInputs& in) {
  KVSIM_CHECK(in.ep >= 2, "an all-to-all needs two expert ranks");
  AllToAllCost out;
  out.mode = mode;
  const bool low_latency_dispatch = mode == DeepEpMode::kLowLatency && kind == AllToAll::kDispatch;
  const double per_channel =
      low_latency_dispatch ? kFp8Bytes + kScaleBytes / kScaleChannels : in.activation_bytes;
  out.bytes = in.tokens * in.top_k * in.hidden * per_channel;
  out.latency_s = in.latency_s;
  if (mode == DeepEpMode::kLowLatency) {
    out.bandwidth_gbps = gbps_of(row_for(kLowLatency, in.ep), kind);
    out.transfer_s = out.bytes / (out.bandwidth_gbps * static_cast<double>(kGB));
  } else {
    KVSIM_CHECK(in.nvlink_gbps > 0,
                "the normal kernels need the device's NVLink bandwidth "
                "(a device YAML's interconnect_gbps is at least 0.001)");
    const double peers = in.ep - 1;
    const double node_peers = std::min(in.ep, kGpusPerNode) - 1;
    const double leaving = out.bytes * peers / in.ep;
    out.nvlink_bytes = leaving * node_peers / peers;
    out.rdma_bytes = leaving - out.nvlink_bytes;
    const double nvlink_share =
        (kind == AllToAll::kDispatch ? kNormalNvlinkDispatchGbps : kNormalNvlinkCombineGbps) /
        kH800NvlinkOneWayGbps;
    const double nvlink_gbps = nvlink_share * in.nvlink_gbps / 2;
    const double nvlink_s = out.nvlink_bytes / (nvlink_gbps * static_cast<double>(kGB));
    double rdma_s = 0;
    double rdma_gbps = 0;
    if (out.rdma_bytes > 0) {
      rdma_gbps = gbps_of(row_for(kNormalRdma, in.ep), kind);
      rdma_s = out.rdma_bytes / (rdma_gbps * static_cast<double>(kGB));
    }
    out.transfer_s = std::max(nvlink_s, rdma_s);
    out.bandwidth_gbps = rdma_s > nvlink_s ? rdma_gbps : nvlink_gbps;
  }
  out.time_s = out.latency_s + out.transfer_s;
  return out;
}

}  // namespace kvsim::sim
