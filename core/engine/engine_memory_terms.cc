// The pieces every engine rule shares: the requested memory, the weights, the profile run's
// activation peak and the graph estimate, each as a SetAsideTerm with its formula.
#include <algorithm>
#include <cmath>

#include "core/base/text_format.h"
#include "core/engine/engine_memory_rules.h"
#include "core/model/weight_memory.h"

namespace kvsim::engine_rules {

std::string bytes_text(uint64_t bytes) {
  return format_count(bytes) + " B (" + format_bytes(bytes) + ")";
}

DType activation_dtype(DType weight_dtype) {
  return dtype_bits(weight_dtype) >= 16 ? weight_dtype : DType::kBf16;
}

void set_requested(const Inputs& in, double default_utilization, const std::string& name,
                   const std::string& source, EngineBudget* out) {
  out->utilization_default = !in.query.memory_utilization.has_value();
  out->memory_utilization = in.query.memory_utilization.value_or(default_utilization);
  out->requested_bytes = static_cast<uint64_t>(
      std::floor(static_cast<long double>(in.total_bytes) * out->memory_utilization));
  out->requested_formula = "total x " + name + " = " + format_count(in.total_bytes) + " x " +
                           format_number(out->memory_utilization) +
                           (out->utilization_default ? " (the engine's default)" : "");
  out->requested_source = source;
}

SetAsideTerm weights_term(const Inputs& in, const std::string& source) {
  const DType dtype = in.capacity.weight_dtype;
  const ParallelLayout layout = parallel_layout(in.capacity);
  const RankWeights rank = rank_weights(in.model, dtype, layout);
  std::string formula;
  if (!layout.tp_only()) {
    formula = rank_weights_formula(rank, layout);
  } else if (dtype_bits(dtype) >= 16) {
    formula = "params x bytes(" + std::string(dtype_name(dtype)) +
              ") / TP = " + format_count(in.model.num_params) + " x " +
              format_number(dtype_bits(dtype) / 8.0) + " / " + std::to_string(in.capacity.tp);
  } else {
    formula = "(params - E) x " + format_number(dtype_bits(dtype) / 8.0) + " B" +
              (dtype == DType::kInt4 ? " (+ 20 bits per 128 for group scales)" : "") +
              " + E x 2 B, / TP; E = vocab x hidden x " +
              (in.model.tie_word_embeddings ? "1 (tied)" : "2 (embedding + lm_head)") + " = " +
              format_count(embedding_params(in.model));
  }
  return {"weights", rank.bytes, formula, source, SetAsideKind::kWeights};
}

SetAsideTerm activation_term(const Inputs& in, const ProfileBatch& batch,
                             uint32_t sampler_bytes_per_logit, const std::string& source) {
  const DType act = activation_dtype(in.capacity.weight_dtype);
  const ActivationPeak peak =
      activation_peak(in.model, in.capacity.tp, act, batch, sampler_bytes_per_logit);
  const std::string b = format_number(dtype_bits(act) / 8.0);
  std::string formula =
      std::string(batch.cold_compile ? "max(forward, sampler, cold compile)"
                                     : "max(forward, sampler)") +
      "; forward = " + format_count(batch.num_tokens) + " tokens x max(MLP " +
      format_count(peak.mlp_bytes_per_token) + ", attention " +
      format_count(peak.attention_bytes_per_token) + ") B = " + format_bytes(peak.forward_bytes) +
      "; sampler = " + format_count(batch.num_tokens) + " x " +
      std::to_string(in.model.hidden_size) + " x " + b + " + " + format_count(batch.num_seqs) +
      " seqs x " + format_count(in.model.vocab_size) + " vocab x " +
      std::to_string(sampler_bytes_per_logit) + " B = " + format_bytes(peak.sampler_bytes);
  if (batch.cold_compile) {
    formula += "; cold compile = (vocab / TP + " + format_count(batch.num_tokens) + " tokens) x " +
               std::to_string(in.model.hidden_size) + " x " + b +
               " B = " + format_bytes(peak.compile_bytes);
  }
  return {"activation peak", peak.peak_bytes, formula, source, SetAsideKind::kActivation};
}

uint64_t nccl_setup_bytes(const Inputs& in, std::string* what) {
  const uint64_t peers = in.capacity.tp - 1;
  if (peers == 0) return 0;
  if (has_nvlink(in.device)) {
    *what = "NCCL set-up over NVLink";
    return kNvlinkNcclSetupBytes;
  }
  *what = "NCCL buffers (" + std::to_string(peers) + " peers x " + format_bytes(kNcclPerPeerBytes) +
          " over PCIe)";
  return peers * kNcclPerPeerBytes;
}

namespace {

// The graph figure per decoder layer at the fitted capture size; MoE layers have their own.
bool has_moe_layers(const ModelSpec& model) { return model.num_active_params < model.num_params; }
uint64_t graph_bytes_per_layer(const ModelSpec& model) {
  return has_moe_layers(model) ? kMoeGraphBytesPerLayer : kGraphBytesPerLayer;
}

}  // namespace

SetAsideTerm graph_term(const Inputs& in, const EngineBudget& budget, const std::string& name,
                        const std::string& source) {
  const uint32_t size = budget.graph_capture_size;
  std::string formula = std::to_string(in.model.num_layers) + " layers x " +
                        format_bytes(graph_bytes_per_layer(in.model)) +
                        (has_moe_layers(in.model) ? " (MoE layer)" : "");
  if (size != kGraphFittedCaptureSize) {
    formula += " x " + std::to_string(size) + "/" + std::to_string(kGraphFittedCaptureSize) +
               " (largest capture size)";
  }
  return {name, graph_estimate_bytes(in.model, size),
          formula + " (kvsim's per-layer figure at capture size " +
              std::to_string(kGraphFittedCaptureSize) + ", fitted to logs)",
          source, SetAsideKind::kGraphs};
}

}  // namespace kvsim::engine_rules

namespace kvsim {

uint64_t graph_estimate_bytes(const ModelSpec& model, uint32_t largest_capture_size) {
  return uint64_t{model.num_layers} * engine_rules::graph_bytes_per_layer(model) *
         largest_capture_size / engine_rules::kGraphFittedCaptureSize;
}

}  // namespace kvsim
