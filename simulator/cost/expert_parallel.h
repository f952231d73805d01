// Expert parallelism in time: the MoE layer's dispatch and combine all-to-alls and the load of
// the slowest expert rank, for the operator cost model (operator_cost_model.h) when a layout
// has ep > 1 (core/engine/parallel_layout.h).
//
// One MoE layer under EP, per rank (DeepEP's dispatch / combine, as SGLang and vLLM run them):
//
//   tokens of the rank  T_r = T dp / ep   (the group's T dp tokens, each sent once; = T when
//                                          ep = dp, one attention-DP rank per expert rank)
//   dispatch bytes      B_d = T_r k h b_d   b_d: normal mode bf16 (the activation's bytes),
//                                          low-latency fp8 + one fp32 scale per 128 channels
//                                          (h + 4 h / 128 bytes a token copy)
//   combine bytes       B_c = T_r k h b_c   b_c: bf16 (the activation's bytes)
//   leaving the rank    (ep - 1) / ep of B; of that, over NVLink the share of peers in the
//                       rank's node, min(ep, 8) - 1 of the ep - 1, over RDMA the rest
//   time                latency + max(NVLink bytes / NVLink bandwidth,
//                                     RDMA bytes / RDMA bandwidth)          (normal)
//                       latency + B / low-latency bandwidth                  (low-latency)
//
// Sources (DeepEP docs/legacy.md "Performance", github.com/deepseek-ai/DeepEP at dd758ca; the
// V1 kernels, H800 with one CX7 400 Gb/s = 50 GB/s NIC per GPU; docs/cost_model.md "Expert
// parallelism" copies the tables):
//   * normal kernels, "Normal kernels with NVLink and RDMA forwarding": intranode EP 8 153 GB/s
//     dispatch, 158 GB/s combine over NVLink. H800's NVLink is 400 GB/s both ways (200 one
//     way); kvsim takes the same fraction, 153/200 and 158/200, of the device's one-way
//     NVLink (DeviceSpec::interconnect_gbps / 2). Internode, RDMA bottleneck bandwidth by EP:
//     16: 43/43, 32: 58/57, 64: 51/50 GB/s (dispatch/combine); an EP size between rows takes
//     the row at or above it, past 64 the 64 row.
//   * low-latency kernels, "Low-latency kernels with pure RDMA" (128 tokens, top-8, fp8
//     dispatch, bf16 combine), RDMA bandwidth by EP 8..256: dispatch 98 63 48 43 39 39, combine
//     127 74 53 46 39 40 GB/s; these are logical bandwidths (every token copy's bytes, local
//     ones included, over the kernel's time), so B is the rank's whole B_d or B_c. EP below 8
//     takes the EP 8 row.
//   * latency: the device fit's custom one-shot all-reduce latency (a measured NVLink
//     signal round trip between the GPUs of a node; operator_fits.h): the tables give
//     bandwidths at one load, not a fixed part.
// The mode, as SGLang's --deepep-mode auto picks it (DeepEPMode.resolve): low-latency for a
// decode-only batch, normal when any prefill chunk is in the batch.
// Not modelled: DeepEP's per-node deduplication of a token's RDMA copies (kvsim sends every
// copy: an upper bound), overlap of the all-to-alls with the GEMMs (two-batch overlap).
//
// The slowest rank gates the layer (DP ranks step through the MoE layers together: vLLM runs
// a dummy batch on an idle DP rank, vllm/v1/engine/core.py DPEngineCoreProc
// execute_dummy_batch). Under uniform random top-k routing of N = T dp tokens over E experts,
// each rank holding E / ep of them, a token sends X ~ Hypergeometric(E, E/ep, k) copies to a
// rank, so a rank's load L = sum of N such X:
//   mean  mu = N k / ep,   variance  s^2 = N k (1/ep)(1 - 1/ep)(E - k)/(E - 1)
// The ep loads sum to N k exactly: exchangeable with correlation -1/(ep - 1), which is
// mu + s sqrt(ep/(ep-1)) (Z_i - mean Z) for iid standard normals Z_i (normal approximation).
// Hence
//   E[max_r L_r] = mu + s sqrt(ep / (ep - 1)) e_ep,   e_n = E[max of n iid N(0,1)]
// (exact for ep = 2 given normal loads: max = mu + |L_1 - mu|, e_2 = 1/sqrt(pi)), capped at
// N min(k, E/ep). The symmetric-load assumption: every DP rank carries a batch like the
// simulated one.
#pragma once

#include <cstdint>
#include <string_view>

namespace kvsim::sim {

// The node size the NVLink domain spans (HGX / DGX H100, H200, H800: 8 GPUs).
inline constexpr uint32_t kGpusPerNode = 8;

enum class DeepEpMode : uint8_t { kNormal, kLowLatency };
std::string_view deepep_mode_name(DeepEpMode mode);  // "normal", "low_latency"
// SGLang's auto mode: low-latency when the batch has no prefill chunk.
DeepEpMode deepep_mode(bool has_prefill);

// e_n = E[max of n iid standard normals] (e_1 = 0, e_2 = 1/sqrt(pi), e_3 = 3/(2 sqrt(pi))),
// by numerical integration of x n phi(x) Phi(x)^(n-1).
double expected_max_standard_normal(uint32_t n);

// The expected maximum over the ep ranks of the token copies a rank receives (formula above);
// `max_normal` is expected_max_standard_normal(ep), computed once by the caller.
double expected_max_rank_rows(double tokens, uint32_t experts, uint32_t top_k, uint32_t ep,
                              double max_normal);

enum class AllToAll : uint8_t { kDispatch, kCombine };

// One dispatch or combine of one rank, per MoE layer.
struct AllToAllCost {
  DeepEpMode mode = DeepEpMode::kNormal;
  double bytes = 0;           // the rank's token copies, local ones included (B_d or B_c)
  double nvlink_bytes = 0;    // normal mode: bytes to peers in the node
  double rdma_bytes = 0;      // normal mode: bytes to peers on other nodes
  double bandwidth_gbps = 0;  // the bottleneck's (normal: NVLink or RDMA; LL: the table's)
  double transfer_s = 0;      // bytes / bandwidth
  double latency_s = 0;
  double time_s = 0;  // latency + transfer (launch not included)
};

struct AllToAllInputs {
  uint32_t ep = 1;
  double tokens = 0;  // T_r, the rank's tokens
  uint32_t top_k = 1;
  double hidden = 0;
  double activation_bytes = 2;  // bf16 / fp16 activations
  double nvlink_gbps = 0;       // the device's interconnect_gbps (both ways)
  double latency_s = 0;
};

AllToAllCost all_to_all_cost(AllToAll kind, DeepEpMode mode, const AllToAllInputs& in);

}  // namespace kvsim::sim
