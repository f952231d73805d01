// OperatorCostModel: one iteration as the sum of the model's operators, each timed from its
// FLOPs and bytes with efficiency curves fitted to measured kernel profiles
// (simulator/cost/operator_fits.h). The default cost model (`cost_model.kind: operators`).
//
// Per layer, in execution order (per device of the TP group; M = tokens computed this
// iteration, S = tokens sampled, a = bytes per activation, w = bytes per weight):
//   input_norm              elementwise, 2 a M h bytes
//   qkv_proj                GEMM M x h -> (heads + 2 kv_heads) head_dim / tp   (MLA: its
//                           projections)
//   rope                    elementwise, 2 a M (heads + kv_heads) head_dim / tp
//   kv_cache_write          elementwise, 2 x M x KV bytes per token per layer
//   attention_prefill       the batch's chunks: floor + sum F_cross / (P e_cross(q))
//                           + F_causal / (P e_causal(q))
//   attention_decode        the batch's decodes: floor + max(F / (P e_cross_max),
//                           KV bytes read / (BW e))
//   o_proj                  GEMM M x heads head_dim / tp -> h
//   all_reduce              tp > 1: latency + 2 (tp-1)/tp x a M h / bus bandwidth
//   post_norm               elementwise, 2 a M h
//   mlp_up                  GEMM M x h -> (2 if gated) ffn / tp   (MoE: router, experts, shared)
//   mlp_act                 elementwise, (3 if gated else 2) a M ffn / tp
//   mlp_down                GEMM M x ffn / tp -> h
//   all_reduce              tp > 1, as above
//   residual_add            elementwise, 3 a M h
// and once per iteration: embedding (elementwise 2 a M h, + an all-reduce when tp > 1: vLLM's
// vocab-parallel embedding), final_norm (M tokens), lm_head (GEMM S x h -> vocab / tp: only the
// sampled rows), logits_all_gather (tp > 1: latency + (tp-1)/tp x a S vocab / bus bandwidth),
// sampling (elementwise over S x vocab fp32 logits) and iteration_overhead (CPU, fixed).
//
// Hybrid models (simulator/cost/layer_kind_costs.h; docs/cost_model.md "Hybrid models"): the
// attention operators above run over the full (and MLA) layers; sliding-window layers get
// kv_cache_write_sliding, attention_prefill_sliding and attention_decode_sliding, the same
// formulas over BatchShape's window sums; recurrent layers get recurrent_in_proj (GEMM
// M x h -> conv_dim + ssm_heads ssm_head_dim / tp), recurrent_state (read + write of every
// sequence's state, memory-bound) and recurrent_out_proj (GEMM M x ssm_heads ssm_head_dim / tp
// -> h) in place of qkv_proj, attention and o_proj; rope runs over the attention layers, and
// the FFN over the `none` layers when the model has them (Nemotron-H: a layer is a mixer or an
// FFN), else over every layer.
//
// Every operator instance adds a launch overhead per kernel: the eager one, or the CUDA-graph
// one when the engine runs the iteration as a graph (simulator/cost/execution_profile.h: a full
// graph, or piecewise graphs that leave attention eager; cost_model.cuda_graphs none, decode or
// all overrides the engine's rule). A TP all-reduce runs NCCL or the engine's custom one-shot /
// two-shot kernel (the same profile), each with its own fit.
//
// GEMM:        t = floor + sqrt(tc^2 + tm^2), tc = 2 M K N / (P ec(M)),
//              ec(M) = ec_max M / (M + M_half), tm = (w K N + a M (K + N)) / (BW em)
//              — a smooth maximum (k = 2): near the ridge the measured kernels are slower
//              than either bound (tile and wave quantization)
// elementwise: t = sqrt(floor^2 + (bytes / (BW e))^2)
// The prefill-attention efficiency e(q) = e_max q / (q + q_half) makes a chunk's time a
// polynomial in q and c, so the batch's sum needs only BatchShape's sums (q c, c, q^2, q, 1).
//
// MoE (ModelArch, simulator/cost/model_arch.h): FLOPs of the routed experts from the T x top-k
// token assignments, weight bytes of the experts the batch touches — the expected number of
// distinct experts among E when T tokens each pick k: D = E (1 - (1 - k/E)^T) — and the GEMM
// efficiency at T k / D tokens per expert; shared experts and the router as dense GEMMs.
// Parallel layouts (core/engine/parallel_layout.h; docs/cost_model.md "Parallel layouts"): the
// operators above are one rank's. `tp` below is the attention TP (tp / dp): attention, norms,
// rope, KV writes, dense FFN, shared experts, embedding and lm_head split by it, over this DP
// rank's batch (vLLM: each DP engine core runs them with its own --tensor-parallel-size),
// their all-reduces over it. The routed experts of the MoE layers:
//   ep = 1, dp > 1   every expert split over the whole group (vLLM's flattened tp x dp), over
//                    the dp ranks' tokens (T dp: the symmetric-load assumption), then
//                    moe_all_reduce over the group (all-gather + reduce-scatter, an
//                    all-reduce's bytes) in place of the TP all-reduce
//   ep > 1           moe_dispatch and moe_combine (simulator/cost/expert_parallel.h) around
//                    expert GEMMs of E / ep whole-or-(tp/ep)-split experts at the slowest
//                    rank's expected load x expert_imbalance
// With dp = ep = pp = 1 every term is the TP group's as above.
// MLA: attention over the latent (the KV bytes are the latent's; FLOPs per pair
// 2 heads (2 kv_lora_rank + qk_rope_head_dim), weights absorbed), projections q_a/q_b/kv_a/kv_b.
// Weight dtypes: w from the dtype (int4: half a byte); P is the bf16/fp16 peak, int8 TOPS for
// int8 and fp8 weights (simulator/cost/roofline_cost_model.h: device_peak_flops).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/engine/capacity.h"
#include "core/engine/parallel_layout.h"
#include "core/model/device_spec.h"
#include "core/model/dtype.h"
#include "core/model/model_spec.h"
#include "simulator/cost/cost_model_config.h"
#include "simulator/cost/execution_profile.h"
#include "simulator/cost/layer_kind_costs.h"
#include "simulator/cost/operator_fits.h"
#include "simulator/engine/cost_model.h"

namespace kvsim::sim {

// A matrix multiply's shape per device: M tokens x K -> N.
struct GemmShape {
  std::string_view name;
  double k = 0;
  double n = 0;
};

// The model's operators on one device of the TP group, derived once.
struct OperatorInputs {
  double peak_flops = 0;        // FLOP/s for the weight dtype
  double bandwidth_bps = 0;     // device memory, bytes/s
  double activation_bytes = 2;  // per element
  double weight_bytes = 2;      // per element (int4: 0.5)
  uint32_t tp = 1;              // the attention TP: tp / dp of the layout
  uint32_t group_tp = 1;     // the layout's whole TP group (the routed experts' split when ep = 1)
  uint32_t dp = 1;           // attention data-parallel ranks stepping together
  uint32_t ep = 1;           // expert ranks (E / ep experts each)
  double ep_max_normal = 0;  // expected_max_standard_normal(ep), computed once
  double expert_imbalance = 1;  // cost_model.expert_imbalance: slowest rank / expected max
  double nvlink_gbps = 0;       // the device's interconnect, both ways (EP's NVLink share)
  uint32_t num_layers = 0;
  double hidden = 0;
  std::vector<GemmShape> attention_in;  // qkv_proj, or MLA's q_a/q_b/kv_a/kv_b
  GemmShape o_proj;
  GemmShape recurrent_in, recurrent_out;  // a recurrent mixer's projections (none: n = 0)
  double rope_width = 0;                  // q + k elements rotated per token
  LayerKindCosts kinds;  // layers per kind and their KV / state bytes (dtype, padding)
  double attention_flops_per_pair = 0;  // per layer, per (query, key) pair
  // The FFN of dense layers and, for MoE, of expert layers (num_moe_layers of them).
  GemmShape mlp_up, mlp_down;  // dense (per token)
  double mlp_act_width = 0;    // elements the activation reads and writes per token
  uint32_t num_moe_layers = 0;
  uint32_t num_experts = 0, experts_per_token = 0;
  GemmShape router, expert_up, expert_down, shared_up, shared_down;
  double expert_act_width = 0, shared_act_width = 0;
  double vocab = 0;  // lm_head N = vocab / tp
};

OperatorInputs operator_inputs(const ModelSpec& model, const DeviceSpec& device,
                               const CapacityResult& capacity, DType weight_dtype, uint32_t tp);
// One rank of a valid layout (validate_parallel_layout); {tp} is the call above.
OperatorInputs operator_inputs(const ModelSpec& model, const DeviceSpec& device,
                               const CapacityResult& capacity, DType weight_dtype,
                               const ParallelLayout& layout);

class OperatorCostModel final : public CostModel {
 public:
  OperatorCostModel(OperatorInputs inputs, OperatorFit fit, ExecutionProfile profile);

  std::string name() const override { return "operators(" + fit_.name + ")"; }
  int64_t iteration_ns(const BatchShape& batch) const override;
  CostBreakdown explain(const BatchShape& batch) const override;
  // The iteration's time in seconds (iteration_ns before rounding).
  double iteration_s(const BatchShape& batch) const;
  const OperatorInputs& inputs() const { return inputs_; }
  const OperatorFit& fit() const { return fit_; }
  const ExecutionProfile& profile() const { return profile_; }

  // One operator instance as evaluate() computed it (for explain and tests).
  enum class Form : uint8_t {
    kGemm,
    kElementwise,
    kDecodeAttention,
    kPrefillAttention,
    kCollective,
    kAllToAll,
    kFixed,
  };
  struct Terms {
    std::string_view name;
    Form form = Form::kFixed;
    double count = 0;           // instances
    double time_s = 0;          // one instance, launch included
    double flops = 0;           // one instance
    double bytes = 0;           // one instance
    double compute_s = 0;       // the compute bound (tc)
    double memory_s = 0;        // the memory or transfer bound (tm)
    double floor_s = 0;         // the fixed kernel or collective latency
    double launch_s = 0;        // launch overhead
    double m = 0;               // GEMM: tokens (per expert for MoE); attention: chunks or decodes
    double efficiency = 0;      // GEMM ec(M), attention's achieved fraction, elementwise e
    std::string_view kernel;    // a collective's algorithm (all_reduce_kernel_name), an
                                // all-to-all's DeepEP mode ("normal", "low_latency")
    double nvlink_bytes = 0;    // all-to-all: bytes to peers in the node (normal mode)
    double rdma_bytes = 0;      // all-to-all: bytes to other nodes (normal mode)
    double bandwidth_gbps = 0;  // all-to-all: the bottleneck link's bandwidth
  };
  // Every operator of the iteration, in order (their count x time_s sum to iteration_s).
  std::vector<Terms> terms(const BatchShape& batch) const;

 private:
  // Sums every operator's time in a fixed order and hands each to sink(terms); returns the
  // iteration's seconds. explain and terms use it; iteration_s makes the same sum, in the
  // same order, with the operators that depend only on the batch's new tokens, sampled tokens
  // and kind (decode-only or not) cached: bit for bit the same total (tested).
  template <typename Sink>
  double evaluate(const BatchShape& batch, Sink&& sink) const;
  double cached_evaluate(const BatchShape& batch) const;
  struct Launches {
    double other = 0;      // per kernel outside attention
    double attention = 0;  // attention's (outside a piecewise graph)
  };
  Launches launches(const BatchShape& batch) const;
  // The operators before attention (norm, projections in, RoPE, KV writes) and after it
  // (projections out, all-reduces, FFN or experts, model ends): functions of new tokens,
  // sampled tokens and whether the batch has a prefill chunk only.
  template <typename Emit>
  void emit_before_mixers(const BatchShape& batch, const Launches& launches, Emit&& emit) const;
  template <typename Emit>
  void emit_after_mixers(const BatchShape& batch, double launch, Emit&& emit) const;
  // The scheduler's CPU time, after the GPU's `total`.
  Terms overhead(double total) const;
  // One cached batch kind: the sum before the mixers and each operator's count x time after.
  struct SharedTerms {
    uint64_t new_tokens = ~uint64_t{0};  // the key (none yet)
    uint64_t sampled_tokens = 0;
    bool decode_only = false;
    uint32_t num_after = 0;
    double before_mixers = 0;
    std::array<double, 24> after_mixers{};
  };
  static constexpr int kSharedCacheBits = 9;  // 512 entries, direct-mapped
  const SharedTerms& shared_terms(const BatchShape& batch, const Launches& launches) const;
  // Attention of the full and sliding layers over the contexts, recurrent state updates.
  template <typename Emit>
  void emit_mixers(const BatchShape& batch, double launch, Emit&& emit) const;
  // An all-reduce of `bytes` per rank by the kernel the profile picks (NCCL, or the custom
  // one-shot / two-shot kernel), `count` times.
  Terms all_reduce(std::string_view name, double bytes, double count, double launch) const;
  // The same over a group of `ranks`.
  Terms all_reduce(std::string_view name, double bytes, double count, double launch,
                   uint32_t ranks) const;
  Terms prefill_attention(const BatchShape& batch, double launch) const;
  Terms sliding_prefill_attention(const BatchShape& batch, double launch) const;
  // A prefill attention instance from its FLOPs, KV bytes read and compute time.
  Terms prefill_terms(std::string_view name, double flops, double bytes, double compute_s,
                      double layers, double chunks, double launch) const;
  // `decodes` decodes reading `keys` keys of `kv_bytes_per_token` in each of `layers` layers.
  Terms decode_attention(std::string_view name, double keys, double kv_bytes_per_token,
                         double layers, double decodes, double launch) const;
  template <typename Emit>
  void emit_moe(const BatchShape& batch, double launch, Emit&& emit) const;
  // The routed experts' GEMMs and activation over `rows` token copies on `experts` experts of
  // the rank, `distinct` of them touched.
  template <typename Emit>
  void emit_experts(double rows, double distinct, double launch, Emit&& emit) const;
  // Embedding, final norm, LM head, logits gather, sampling.
  template <typename Emit>
  void emit_model_ends(const BatchShape& batch, double launch, Emit&& emit) const;

  OperatorInputs inputs_;
  OperatorFit fit_;
  ExecutionProfile profile_;
  // Filled as batches come (so iteration_s is not safe to call from two threads at once: each
  // engine has its own model).
  mutable std::vector<SharedTerms> shared_cache_ =
      std::vector<SharedTerms>(size_t{1} << kSharedCacheBits);
};

}  // namespace kvsim::sim
