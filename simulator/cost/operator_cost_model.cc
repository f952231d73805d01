#include "simulator/cost/operator_cost_model.h"

#include <algorithm>
#include <cmath>

#include "core/base/check.h"
#include "core/base/units.h"
#include "simulator/cost/expert_parallel.h"
#include "simulator/cost/layer_kind_costs.h"
#include "simulator/cost/model_arch.h"
#include "simulator/cost/roofline_cost_model.h"

namespace kvsim::sim {
namespace {

constexpr double kLogitBytes = 4;  // sampling reads and writes fp32 logits

using Terms = OperatorCostModel::Terms;
using Form = OperatorCostModel::Form;

double per_device(uint64_t count, uint32_t tp) {
  return static_cast<double>((count + tp - 1) / tp);  // heads replicated when tp > count
}

// MLA's projections (no q compression when q_lora_rank is 0), per device.
std::vector<GemmShape> mla_projections(const ModelSpec& m, const ModelArch& arch, uint32_t tp) {
  const double h = m.hidden_size;
  const double heads = per_device(m.num_attention_heads, tp);
  const double qk = arch.qk_nope_head_dim + m.qk_rope_head_dim;
  std::vector<GemmShape> out;
  if (arch.q_lora_rank > 0) {
    out.push_back({"q_a_proj", h, static_cast<double>(arch.q_lora_rank)});
    out.push_back({"q_b_proj", static_cast<double>(arch.q_lora_rank), heads * qk});
  } else {
    out.push_back({"q_proj", h, heads * qk});
  }
  out.push_back({"kv_a_proj", h, static_cast<double>(m.kv_lora_rank + m.qk_rope_head_dim)});
  out.push_back({"kv_b_proj", static_cast<double>(m.kv_lora_rank),
                 heads * (arch.qk_nope_head_dim + arch.v_head_dim)});
  return out;
}

// The dense FFN width: the model's, or — for an MoE preset without expert fields — the width
// that makes the parameters per token equal num_active_params.
double dense_ffn_width_for_active_params(const ModelSpec& m, const ModelArch& arch,
                                         const OperatorInputs& full) {
  const double ffn = m.intermediate_size;
  if (arch.num_experts > 0 || m.num_active_params == 0 || m.num_active_params >= m.num_params) {
    return ffn;
  }
  double attention = full.o_proj.k * full.o_proj.n;
  for (const GemmShape& g : full.attention_in) attention += g.k * g.n;
  const double embed =
      static_cast<double>(m.vocab_size) * m.hidden_size * (arch.tie_word_embeddings ? 1.0 : 2.0);
  const double per_layer_ffn =
      (static_cast<double>(m.num_active_params) - embed) / m.num_layers - attention;
  const double width = per_layer_ffn / ((arch.gated_mlp ? 3.0 : 2.0) * m.hidden_size);
  return width > 0 ? width : ffn;
}

// A recurrent mixer's input and output projections, per device, from its state shapes
// (core/model/model_spec.h LayerGroup): in  h -> conv_dim + ssm_heads x ssm_head_dim (the conv
// channels x/B/C, or q/k/v, and the output gate z), out ssm_heads x ssm_head_dim -> h. Exact
// for mamba2 but for its ssm_heads dt channels, for mamba1 but for its small x_proj/dt_proj, for
// a gated delta net but for its 2 v_heads gate channels.
void set_recurrent_projections(const ModelSpec& m, uint32_t tp, OperatorInputs* in) {
  for (const LayerGroup& g : model_layer_groups(m)) {
    if (g.kind != LayerKind::kRecurrent) continue;
    const double inner = per_device(g.ssm_heads, tp) * g.ssm_head_dim;
    const double conv = static_cast<double>(g.conv_dim) / tp;
    in->recurrent_in = {"recurrent_in_proj", static_cast<double>(m.hidden_size), conv + inner};
    in->recurrent_out = {"recurrent_out_proj", inner, static_cast<double>(m.hidden_size)};
    return;
  }
}

// The routed experts split `expert_tp` ways, the shared experts `shared_tp` ways.
void set_moe(const ModelSpec& m, const ModelArch& arch, uint32_t shared_tp, uint32_t expert_tp,
             OperatorInputs* in) {
  const double h = m.hidden_size;
  const double gate = arch.gated_mlp ? 2.0 : 1.0;
  in->num_moe_layers = m.num_layers - std::min(arch.num_dense_layers, m.num_layers);
  in->num_experts = arch.num_experts;
  in->experts_per_token = arch.num_experts_per_token;
  in->router = {"router", h, static_cast<double>(arch.num_experts)};
  const double expert = per_device(arch.moe_intermediate_size, expert_tp);
  in->expert_up = {"expert_up", h, gate * expert};
  in->expert_down = {"expert_down", expert, h};
  in->expert_act_width = (gate + 1) * expert;
  const double shared = per_device(arch.shared_expert_intermediate_size, shared_tp);
  in->shared_up = {"shared_up", h, gate * shared};
  in->shared_down = {"shared_down", shared, h};
  in->shared_act_width = (gate + 1) * shared;
}

// A GEMM instance: `rows` token rows (T x top-k for experts), efficiency at `m` rows per weight
// matrix, `copies` weight matrices read (distinct experts).
Terms gemm(const GemmFit& g, const OperatorInputs& in, const GemmShape& s, double rows, double m,
           double copies, double count, double launch) {
  Terms t;
  t.name = s.name;
  t.form = Form::kGemm;
  t.count = count;
  t.m = m;
  t.flops = 2 * rows * s.k * s.n;
  t.bytes = in.weight_bytes * s.k * s.n * copies + in.activation_bytes * rows * (s.k + s.n);
  t.efficiency = g.compute_efficiency_max * m / (m + g.compute_half_tokens);
  t.compute_s = t.flops / (in.peak_flops * t.efficiency);
  t.memory_s = t.bytes / (in.bandwidth_bps * g.memory_efficiency);
  t.floor_s = g.floor_s;
  t.launch_s = launch;
  t.time_s = g.floor_s + std::sqrt(t.compute_s * t.compute_s + t.memory_s * t.memory_s) + launch;
  return t;
}

Terms elementwise(std::string_view name, const ElementwiseFit& e, double bytes, double bandwidth,
                  double count, double launch) {
  Terms t;
  t.name = name;
  t.form = Form::kElementwise;
  t.count = count;
  t.bytes = bytes;
  t.memory_s = bytes / (bandwidth * e.memory_efficiency);
  t.floor_s = e.floor_s;
  t.launch_s = launch;
  t.efficiency = e.memory_efficiency;
  t.time_s = std::sqrt(e.floor_s * e.floor_s + t.memory_s * t.memory_s) + launch;
  return t;
}

// An all-reduce (share 2 (n-1)/n of the bytes over the bus) or all-gather ((n-1)/n).
Terms collective(std::string_view name, const CollectiveFit& c, double share, double bytes,
                 double count, double launch) {
  Terms t;
  t.name = name;
  t.form = Form::kCollective;
  t.count = count;
  t.bytes = bytes;
  t.memory_s = share * bytes / (c.bus_gbps * static_cast<double>(kGB));
  t.floor_s = c.latency_s;
  t.launch_s = launch;
  t.time_s = c.latency_s + t.memory_s + launch;
  return t;
}

Terms all_to_all(std::string_view name, const AllToAllCost& c, double count, double launch) {
  Terms t;
  t.name = name;
  t.form = Form::kAllToAll;
  t.count = count;
  t.bytes = c.bytes;
  t.memory_s = c.transfer_s;
  t.floor_s = c.latency_s;
  t.launch_s = launch;
  t.time_s = c.time_s + launch;
  t.kernel = deepep_mode_name(c.mode);
  t.nvlink_bytes = c.nvlink_bytes;
  t.rdma_bytes = c.rdma_bytes;
  t.bandwidth_gbps = c.bandwidth_gbps;
  return t;
}

}  // namespace

OperatorInputs operator_inputs(const ModelSpec& m, const DeviceSpec& device,
                               const CapacityResult& capacity, DType weight_dtype, uint32_t tp) {
  KVSIM_CHECK(tp >= 1 && m.num_layers > 0, "operator inputs need layers and a TP group");
  const ModelArch arch = model_arch(m);
  OperatorInputs in;
  in.peak_flops = device_peak_flops(device, weight_dtype);
  in.bandwidth_bps = device.memory_bandwidth_gbps * static_cast<double>(kGB);
  in.activation_bytes = dtype_bits(activation_dtype(weight_dtype)) / 8.0;
  in.weight_bytes = dtype_bits(weight_dtype) / 8.0;
  in.tp = tp;
  in.group_tp = tp;
  in.nvlink_gbps = device.interconnect_gbps;
  in.num_layers = m.num_layers;
  in.hidden = m.hidden_size;
  const double h = m.hidden_size;
  const double heads = per_device(m.num_attention_heads, tp);
  const double kv_heads = per_device(m.num_kv_heads, tp);
  if (m.attention == AttentionKind::kMla) {
    in.attention_in = mla_projections(m, arch, tp);
    in.o_proj = {"o_proj", heads * arch.v_head_dim, h};
    in.rope_width = (heads + 1) * m.qk_rope_head_dim;
    in.attention_flops_per_pair = 2.0 * heads * (2.0 * m.kv_lora_rank + m.qk_rope_head_dim);
  } else {
    in.attention_in = {{"qkv_proj", h, (heads + 2 * kv_heads) * m.head_dim}};
    in.o_proj = {"o_proj", heads * m.head_dim, h};
    in.rope_width = (heads + kv_heads) * m.head_dim;
    in.attention_flops_per_pair = 4.0 * heads * m.head_dim;
  }
  in.kinds = layer_kind_costs(m, capacity);
  set_recurrent_projections(m, tp, &in);
  const double gate = arch.gated_mlp ? 2.0 : 1.0;
  OperatorInputs full = in;  // tp = 1 shapes, for the active-parameter width
  if (tp > 1) full = operator_inputs(m, device, capacity, weight_dtype, 1);
  const double ffn = dense_ffn_width_for_active_params(m, arch, full) / tp;
  in.mlp_up = {"mlp_up", h, gate * ffn};
  in.mlp_down = {"mlp_down", ffn, h};
  in.mlp_act_width = (gate + 1) * ffn;
  if (arch.num_experts > 0) set_moe(m, arch, tp, tp, &in);
  in.vocab = m.vocab_size;
  return in;
}

OperatorInputs operator_inputs(const ModelSpec& m, const DeviceSpec& device,
                               const CapacityResult& capacity, DType weight_dtype,
                               const ParallelLayout& layout) {
  OperatorInputs in = operator_inputs(m, device, capacity, weight_dtype, layout.attention_tp());
  in.group_tp = layout.tp;
  in.dp = layout.dp;
  in.ep = layout.ep;
  in.ep_max_normal = expected_max_standard_normal(layout.ep);
  const ModelArch arch = model_arch(m);
  if (arch.num_experts > 0) set_moe(m, arch, in.tp, layout.tp / layout.ep, &in);
  return in;
}

OperatorCostModel::OperatorCostModel(OperatorInputs inputs, OperatorFit fit,
                                     ExecutionProfile profile)
    : inputs_(std::move(inputs)), fit_(std::move(fit)), profile_(std::move(profile)) {
  KVSIM_CHECK(inputs_.peak_flops > 0 && inputs_.bandwidth_bps > 0,
              "the operator model needs a device with peak FLOP/s and bandwidth");
}

// Adds an operator's count x time to `total` (a kind the model has no layers of adds nothing):
// evaluate() and the cached sum add through this one expression, so they agree bit for bit.
namespace {

void add_term(double* total, const OperatorCostModel::Terms& t) {
  if (t.count > 0) *total += t.count * t.time_s;
}

}  // namespace

// Graph mode decides the launch overheads: the other kernels' and attention's. Checks the batch
// is of the model's window.
OperatorCostModel::Launches OperatorCostModel::launches(const BatchShape& b) const {
  KVSIM_CHECK(b.window_tokens == inputs_.kinds.window_tokens,
              "the batch's sliding window is not the model's (cost_window_tokens)");
  const ExecutionProfile& p = profile_;
  const OperatorFit& f = fit_;
  // A full graph holds every kernel; piecewise graphs all but attention's.
  const bool capturable = p.max_graph_tokens == 0 || b.new_tokens <= p.max_graph_tokens;
  const bool full_graph =
      capturable && (b.num_prefill_chunks == 0 ? p.decode_graphs : p.other_graphs);
  const bool piecewise = capturable && !full_graph && p.piecewise_graphs;
  return {full_graph || piecewise ? f.graph_launch_overhead_s : f.launch_overhead_s,
          full_graph ? f.graph_launch_overhead_s : f.launch_overhead_s};
}

template <typename Sink>
double OperatorCostModel::evaluate(const BatchShape& b, Sink&& sink) const {
  const Launches launch = launches(b);
  double total = 0;
  const auto emit = [&](const Terms& t) {
    if (t.count <= 0) return;  // a kind the model has no layers of
    add_term(&total, t);
    sink(t);
  };
  emit_before_mixers(b, launch, emit);
  emit_mixers(b, launch.attention, emit);
  emit_after_mixers(b, launch.other, emit);
  emit(overhead(total));
  return total;
}

// The sum evaluate() makes, in its order (so bit for bit the same), with the operators that
// depend only on the batch's tokens, samples and kind taken from the cache.
double OperatorCostModel::cached_evaluate(const BatchShape& b) const {
  const Launches launch = launches(b);
  const SharedTerms& shared = shared_terms(b, launch);
  double total = shared.before_mixers;
  emit_mixers(b, launch.attention, [&total](const Terms& t) { add_term(&total, t); });
  for (uint32_t i = 0; i < shared.num_after; ++i) total += shared.after_mixers[i];
  return total + overhead(total).time_s;
}

const OperatorCostModel::SharedTerms& OperatorCostModel::shared_terms(
    const BatchShape& b, const Launches& launch) const {
  const bool decode_only = b.num_prefill_chunks == 0;
  const uint64_t key = (b.new_tokens * 0x9E3779B97F4A7C15ULL) ^
                       (b.sampled_tokens * 0xC2B2AE3D27D4EB4FULL) ^ (decode_only ? 1 : 0);
  SharedTerms& e = shared_cache_[key >> (64 - kSharedCacheBits)];
  if (e.new_tokens == b.new_tokens && e.sampled_tokens == b.sampled_tokens &&
      e.decode_only == decode_only) {
    return e;
  }
  e.new_tokens = b.new_tokens;
  e.sampled_tokens = b.sampled_tokens;
  e.decode_only = decode_only;
  e.before_mixers = 0;
  emit_before_mixers(b, launch, [&e](const Terms& t) { add_term(&e.before_mixers, t); });
  e.num_after = 0;
  emit_after_mixers(b, launch.other, [&e](const Terms& t) {
    if (t.count <= 0) return;
    KVSIM_CHECK(e.num_after < e.after_mixers.size(), "more shared operators than the cache holds");
    e.after_mixers[e.num_after++] = t.count * t.time_s;
  });
  return e;
}

OperatorCostModel::Terms OperatorCostModel::overhead(double total) const {
  const double cpu = fit_.iteration_overhead_s;
  Terms t;
  t.name = "iteration_overhead";
  t.count = 1;
  t.floor_s = cpu;
  // Overlapped (async scheduling), the CPU's work adds only what the GPU's does not cover.
  t.time_s = profile_.overlap_cpu ? std::max(0.0, cpu - total) : cpu;
  t.kernel = profile_.overlap_cpu ? "overlapped" : "";
  return t;
}

template <typename Emit>
void OperatorCostModel::emit_before_mixers(const BatchShape& b, const Launches& launches,
                                           Emit&& emit) const {
  const OperatorInputs& in = inputs_;
  const OperatorFit& f = fit_;
  const LayerKindCosts& kinds = in.kinds;
  const double m = static_cast<double>(b.new_tokens);
  const double attention = kinds.attention_layers();
  const double a = in.activation_bytes;
  const double bw = in.bandwidth_bps;
  const double launch = launches.other;
  emit(elementwise("input_norm", f.norm, 2 * a * m * in.hidden, bw, in.num_layers, launch));
  for (const GemmShape& g : in.attention_in) emit(gemm(f.gemm, in, g, m, m, 1, attention, launch));
  emit(gemm(f.gemm, in, in.recurrent_in, m, m, 1, kinds.recurrent_layers, launch));
  emit(elementwise("rope", f.rope, 2 * a * m * in.rope_width, bw, attention, launch));
  // The mixers' KV writes (of the new tokens only), at attention's launch.
  emit(elementwise("kv_cache_write", f.residual_add, 2 * m * kinds.full_kv_bytes_per_token_layer,
                   bw, kinds.full_layers, launches.attention));
  emit(elementwise("kv_cache_write_sliding", f.residual_add,
                   2 * m * kinds.sliding_kv_bytes_per_token_layer, bw, kinds.sliding_layers,
                   launches.attention));
}

template <typename Emit>
void OperatorCostModel::emit_after_mixers(const BatchShape& b, double launch, Emit&& emit) const {
  const OperatorInputs& in = inputs_;
  const OperatorFit& f = fit_;
  const LayerKindCosts& kinds = in.kinds;
  const double m = static_cast<double>(b.new_tokens);
  const double layers = in.num_layers;
  const double a = in.activation_bytes;
  const double bw = in.bandwidth_bps;
  emit(gemm(f.gemm, in, in.o_proj, m, m, 1, kinds.attention_layers(), launch));
  emit(gemm(f.gemm, in, in.recurrent_out, m, m, 1, kinds.recurrent_layers, launch));
  // Two per layer (attention, FFN), but for MoE layers whose experts reduce over the whole
  // group (dp > 1 without EP: moe_all_reduce).
  const double own_moe_reduces = in.dp > 1 && in.ep == 1 ? in.num_moe_layers : 0;
  if (in.tp > 1) {
    emit(all_reduce("all_reduce", a * m * in.hidden, 2 * layers - own_moe_reduces, launch));
  }
  emit(elementwise("post_norm", f.norm, 2 * a * m * in.hidden, bw, layers, launch));
  // Nemotron-H-style models put the FFN in layers of their own (kind none); the others in
  // every layer.
  const double ffn_layers = kinds.none_layers > 0 ? kinds.none_layers : layers;
  const double dense_layers = std::max(0.0, ffn_layers - in.num_moe_layers);
  if (dense_layers > 0) {
    emit(gemm(f.gemm, in, in.mlp_up, m, m, 1, dense_layers, launch));
    emit(elementwise("mlp_act", f.activation, a * m * in.mlp_act_width, bw, dense_layers, launch));
    emit(gemm(f.gemm, in, in.mlp_down, m, m, 1, dense_layers, launch));
  }
  if (in.num_moe_layers > 0) emit_moe(b, launch, emit);
  emit(elementwise("residual_add", f.residual_add, 3 * a * m * in.hidden, bw, layers, launch));
  emit_model_ends(b, launch, emit);
}

template <typename Emit>
void OperatorCostModel::emit_mixers(const BatchShape& b, double launch, Emit&& emit) const {
  const LayerKindCosts& kinds = inputs_.kinds;
  const OperatorFit& f = fit_;
  const double full = kinds.full_layers;
  const double sliding = kinds.sliding_layers;
  // (A kind the model has no layers of is not emitted: skipped before it is computed.)
  if (b.num_prefill_chunks > 0) {
    emit(prefill_attention(b, launch));
    if (sliding > 0) emit(sliding_prefill_attention(b, launch));
  }
  if (b.num_decodes() > 0) {
    const double decodes = static_cast<double>(b.num_decodes());
    emit(decode_attention("attention_decode",
                          static_cast<double>(b.decode_context_tokens + b.num_decodes()),
                          kinds.full_kv_bytes_per_token_layer, full, decodes, launch));
    if (sliding > 0) {
      emit(decode_attention("attention_decode_sliding",
                            static_cast<double>(b.window_decode_context_tokens + b.num_decodes()),
                            kinds.sliding_kv_bytes_per_token_layer, sliding, decodes, launch));
    }
  }
  if (kinds.recurrent_layers == 0) return;
  // A recurrent layer reads and writes each sequence's state once per iteration (the
  // memory-bound state update; its scan FLOPs are not counted), with the decode attention's
  // fitted floor and memory efficiency: the same kind of per-sequence cache read.
  const ElementwiseFit state{f.decode_attention.floor_s, f.decode_attention.memory_efficiency};
  emit(elementwise("recurrent_state", state,
                   2 * static_cast<double>(b.num_seqs) * kinds.state_bytes_per_layer,
                   inputs_.bandwidth_bps, kinds.recurrent_layers, launch));
}

Terms OperatorCostModel::prefill_attention(const BatchShape& b, double launch) const {
  const PrefillAttentionFit& p = fit_.prefill_attention;
  const double kappa = inputs_.attention_flops_per_pair;
  const double peak = inputs_.peak_flops;
  const double chunks = static_cast<double>(b.num_prefill_chunks);
  const double q = static_cast<double>(b.prefill_tokens);
  const double q2 = static_cast<double>(b.prefill_token_squares);
  const double qc = static_cast<double>(b.prefill_cross_pairs);
  const double c = static_cast<double>(b.prefill_context_tokens);
  // Per chunk F / (P e(q)) with e(q) = e_max q / (q + half): summed, polynomials in the sums.
  const double cross = kappa / (peak * p.cross_efficiency_max) * (qc + p.cross_half_tokens * c);
  const double causal = kappa / (2 * peak * p.causal_efficiency_max) *
                        (q2 + (1 + p.causal_half_tokens) * q + p.causal_half_tokens * chunks);
  return prefill_terms("attention_prefill", kappa * (qc + (q2 + q) / 2),
                       inputs_.kinds.full_kv_bytes_per_token_layer * (c + q), cross + causal,
                       inputs_.kinds.full_layers, chunks, launch);
}

Terms OperatorCostModel::sliding_prefill_attention(const BatchShape& b, double launch) const {
  const PrefillAttentionFit& p = fit_.prefill_attention;
  const double kappa = inputs_.attention_flops_per_pair;
  const double peak = inputs_.peak_flops;
  const double x = static_cast<double>(b.window_prefill_cross_pairs);
  const double y = static_cast<double>(b.window_prefill_causal_pairs);
  // Per chunk x_w (q + half) / (q P e_x,max) + y_w (q + half) / (q P e_c,max): the dense pairs
  // at the cross efficiency, the leading triangle at the causal one, each at the chunk's q
  // (simulator/engine/cost_model.h); exact given the per-query sums.
  const double cross = kappa / (peak * p.cross_efficiency_max) *
                       (x + p.cross_half_tokens * b.window_prefill_cross_per_query);
  const double causal = kappa / (peak * p.causal_efficiency_max) *
                        (y + p.causal_half_tokens * b.window_prefill_causal_per_query);
  const double keys = static_cast<double>(b.window_prefill_context_tokens + b.prefill_tokens);
  return prefill_terms("attention_prefill_sliding", kappa * (x + y),
                       inputs_.kinds.sliding_kv_bytes_per_token_layer * keys, cross + causal,
                       inputs_.kinds.sliding_layers, static_cast<double>(b.num_prefill_chunks),
                       launch);
}

Terms OperatorCostModel::prefill_terms(std::string_view name, double flops, double bytes,
                                       double compute_s, double layers, double chunks,
                                       double launch) const {
  const PrefillAttentionFit& p = fit_.prefill_attention;
  Terms t;
  t.name = name;
  t.form = Form::kPrefillAttention;
  t.count = layers;
  t.m = chunks;
  t.flops = flops;
  t.bytes = bytes;
  t.compute_s = compute_s;
  t.efficiency = t.compute_s > 0 ? t.flops / (inputs_.peak_flops * t.compute_s) : 0;
  t.floor_s = p.floor_s;
  t.launch_s = launch;
  t.time_s = p.floor_s + t.compute_s + launch;
  return t;
}

Terms OperatorCostModel::decode_attention(std::string_view name, double keys,
                                          double kv_bytes_per_token, double layers, double decodes,
                                          double launch) const {
  const DecodeAttentionFit& d = fit_.decode_attention;
  Terms t;
  t.name = name;
  t.form = Form::kDecodeAttention;
  t.count = layers;
  t.m = decodes;
  t.flops = inputs_.attention_flops_per_pair * keys;
  t.bytes = kv_bytes_per_token * keys;
  t.efficiency = fit_.prefill_attention.cross_efficiency_max;
  t.compute_s = t.flops / (inputs_.peak_flops * t.efficiency);
  t.memory_s = t.bytes / (inputs_.bandwidth_bps * d.memory_efficiency);
  t.floor_s = d.floor_s;
  t.launch_s = launch;
  t.time_s = d.floor_s + std::max(t.compute_s, t.memory_s) + launch;
  return t;
}

template <typename Emit>
void OperatorCostModel::emit_moe(const BatchShape& b, double launch, Emit&& emit) const {
  const OperatorInputs& in = inputs_;
  const OperatorFit& f = fit_;
  const double m = static_cast<double>(b.new_tokens);
  const double layers = in.num_moe_layers;
  const double a = in.activation_bytes;
  const double experts = in.num_experts;
  const double k = std::min<double>(in.experts_per_token, experts);
  // The tokens entering the routed experts: every DP rank's (each carrying a batch like this).
  const double tokens = m * in.dp;
  emit(gemm(f.gemm, in, in.router, m, m, 1, layers, launch));
  if (in.ep > 1) {
    const AllToAllInputs exchange{in.ep, tokens / in.ep, in.experts_per_token,       in.hidden,
                                  a,     in.nvlink_gbps, f.custom_one_shot.latency_s};
    const DeepEpMode mode = deepep_mode(b.num_prefill_chunks > 0);
    emit(all_to_all("moe_dispatch", all_to_all_cost(AllToAll::kDispatch, mode, exchange), layers,
                    launch));
    const double rows = expected_max_rank_rows(tokens, in.num_experts, in.experts_per_token, in.ep,
                                               in.ep_max_normal) *
                        in.expert_imbalance;
    const double local = experts / in.ep;
    emit_experts(rows, local * (1 - std::pow(1 - k / experts, tokens)), launch, emit);
    emit(all_to_all("moe_combine", all_to_all_cost(AllToAll::kCombine, mode, exchange), layers,
                    launch));
  } else {
    emit_experts(tokens * k, experts * (1 - std::pow(1 - k / experts, tokens)), launch, emit);
    if (in.dp > 1 && in.group_tp > 1) {
      emit(all_reduce("moe_all_reduce", a * tokens * in.hidden, layers, launch, in.group_tp));
    }
  }
  if (in.shared_up.n > 0) {
    emit(gemm(f.gemm, in, in.shared_up, m, m, 1, layers, launch));
    emit(elementwise("shared_act", f.activation, a * m * in.shared_act_width, in.bandwidth_bps,
                     layers, launch));
    emit(gemm(f.gemm, in, in.shared_down, m, m, 1, layers, launch));
  }
}

template <typename Emit>
void OperatorCostModel::emit_experts(double rows, double distinct, double launch,
                                     Emit&& emit) const {
  const OperatorInputs& in = inputs_;
  const OperatorFit& f = fit_;
  const double layers = in.num_moe_layers;
  const double per_expert = distinct > 0 ? rows / distinct : rows;
  emit(gemm(f.gemm, in, in.expert_up, rows, per_expert, distinct, layers, launch));
  emit(elementwise("expert_act", f.activation, in.activation_bytes * rows * in.expert_act_width,
                   in.bandwidth_bps, layers, launch));
  emit(gemm(f.gemm, in, in.expert_down, rows, per_expert, distinct, layers, launch));
}

template <typename Emit>
void OperatorCostModel::emit_model_ends(const BatchShape& b, double launch, Emit&& emit) const {
  const OperatorInputs& in = inputs_;
  const OperatorFit& f = fit_;
  const double m = static_cast<double>(b.new_tokens);
  const double s = static_cast<double>(b.sampled_tokens);
  const double a = in.activation_bytes;
  const double bw = in.bandwidth_bps;
  const CollectiveFit& group = collective_for(f, in.tp);
  const double n = in.tp;
  emit(elementwise("embedding", f.embedding, 2 * a * m * in.hidden, bw, 1, launch));
  if (in.tp > 1) emit(all_reduce("embedding_all_reduce", a * m * in.hidden, 1, launch));
  emit(elementwise("final_norm", f.norm, 2 * a * m * in.hidden, bw, 1, launch));
  if (s == 0) return;
  const GemmShape head{"lm_head", in.hidden, in.vocab / n};
  emit(gemm(f.gemm, in, head, s, s, 1, 1, launch));
  if (in.tp > 1) {
    emit(collective("logits_all_gather", group, (n - 1) / n, a * s * in.vocab, 1, launch));
  }
  emit(elementwise("sampling", f.residual_add, 2 * kLogitBytes * s * in.vocab, bw, 1, launch));
}

OperatorCostModel::Terms OperatorCostModel::all_reduce(std::string_view name, double bytes,
                                                       double count, double launch) const {
  return all_reduce(name, bytes, count, launch, inputs_.tp);
}

OperatorCostModel::Terms OperatorCostModel::all_reduce(std::string_view name, double bytes,
                                                       double count, double launch,
                                                       uint32_t ranks) const {
  const double n = ranks;
  const AllReduceKernel kernel = all_reduce_kernel(profile_, bytes);
  Terms t;
  switch (kernel) {
    case AllReduceKernel::kOneShot:  // each rank reads every peer's whole tensor
      t = collective(name, fit_.custom_one_shot, n - 1, bytes, count, launch);
      break;
    case AllReduceKernel::kTwoShot:  // reduce-scatter, then all-gather
      t = collective(name, fit_.custom_two_shot, 2 * (n - 1) / n, bytes, count, launch);
      break;
    case AllReduceKernel::kNccl:
      t = collective(name, collective_for(fit_, ranks), 2 * (n - 1) / n, bytes, count, launch);
      break;
  }
  t.kernel = all_reduce_kernel_name(kernel);
  return t;
}

double OperatorCostModel::iteration_s(const BatchShape& batch) const {
  return cached_evaluate(batch);
}

int64_t OperatorCostModel::iteration_ns(const BatchShape& batch) const {
  return seconds_to_ns(iteration_s(batch));
}

std::vector<OperatorCostModel::Terms> OperatorCostModel::terms(const BatchShape& batch) const {
  std::vector<Terms> out;
  evaluate(batch, [&out](const Terms& t) { out.push_back(t); });
  return out;
}

}  // namespace kvsim::sim
