// Readers for hybrids with recurrent layers: Nemotron-H (mamba2 mixers, attention and MLP
// layers by hybrid_override_pattern), Jamba (mamba1 mixers, attention every
// attn_layer_period-th layer, experts every expert_layer_period-th) and Qwen3-Next (gated
// delta-net layers beside gated attention, layer_types or full_attention_interval). Their
// recurrent groups carry vLLM's mamba state shapes (core/model/model_spec.h LayerGroup).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/model/hf_architectures.h"

namespace kvsim {
namespace {

// The model's dtype as vLLM's mamba_cache_dtype "auto" takes it (fp16 or bf16).
DType state_dtype(HfFields& f) {
  return hf_checkpoint_dtype(f.root()) == DType::kFp16 ? DType::kFp16 : DType::kBf16;
}

void set_experts(ModelSpec* m, uint32_t experts, uint32_t top_k, uint32_t width) {
  m->num_experts = experts;
  m->num_experts_per_token = top_k;
  m->moe_intermediate_size = width;
}

void read_nemotron_h(HfFields& f, HfImport* out) {
  HfShape s = read_shape(f);
  s.head_dim = f.get("attention_head_dim", s.head_dim);
  ModelSpec& m = out->model;
  apply_shape(f, s, &m);
  m.gated_mlp = false;
  const std::string pattern = f.text_field("hybrid_override_pattern", "");
  if (pattern.size() != s.layers) {
    f.fail("hybrid_override_pattern",
           fmt::format("must give one of M, *, - per layer ({} layers)", s.layers));
    return;
  }
  const uint64_t h = s.hidden, heads = f.need("mamba_num_heads");
  const uint64_t head_dim = f.need("mamba_head_dim"), groups = f.need("n_groups");
  const uint64_t state = f.need("ssm_state_size"), kernel = f.need("conv_kernel");
  const uint64_t inner = heads * head_dim, conv_dim = inner + 2 * groups * state;
  const uint64_t in_proj = 2 * inner + 2 * groups * state + heads;
  const bool bias = f.flag("use_bias", false), conv_bias = f.flag("use_conv_bias", true);
  const bool attention_bias = f.flag("attention_bias", false);
  const bool mlp_bias = f.flag("mlp_bias", false);
  ParamCount& p = out->params;
  std::vector<LayerKind> kinds;
  for (char c : pattern) {
    p.other += h;  // the layer's norm
    if (c == 'M') {
      p.mixer_linear += h * in_proj + inner * h;
      p.other += conv_dim * kernel + (conv_bias ? conv_dim : 0) + 3 * heads + inner +
                 (bias ? in_proj + h : 0);  // conv, A/D/dt_bias, gated norm, biases
      kinds.push_back(LayerKind::kRecurrent);
    } else if (c == '*') {
      add_attention(h, s.heads, s.kv_heads, s.head_dim, attention_bias, attention_bias, &p);
      kinds.push_back(LayerKind::kFull);
    } else if (c == '-') {
      add_dense_ffn(h, s.intermediate, false, mlp_bias, &p);
      kinds.push_back(LayerKind::kNone);
    } else {
      f.fail("hybrid_override_pattern", std::string("has '") + c +
                                            "'; kvsim reads M (mamba2), * (attention) and - "
                                            "(MLP) layers");
      return;
    }
  }
  add_embeddings(s, h, &p);
  LayerGroup recurrent;
  recurrent.conv_state_tokens = static_cast<uint32_t>(kernel - 1);
  recurrent.conv_dim = static_cast<uint32_t>(conv_dim);
  recurrent.ssm_heads = static_cast<uint32_t>(heads);
  recurrent.ssm_head_dim = static_cast<uint32_t>(head_dim);
  recurrent.ssm_state_size = static_cast<uint32_t>(state);
  recurrent.state_dtype = state_dtype(f);
  set_layer_groups(f, kinds, 0, recurrent, &m);
}

// Jamba's mamba_dt_rank: an integer or "auto" (ceil(hidden / 16)).
uint32_t jamba_dt_rank(HfFields& f, uint32_t hidden) {
  const nlohmann::json* rank = f.find("mamba_dt_rank");
  if (rank != nullptr && rank->is_string() && *rank == "auto") return (hidden + 15) / 16;
  return f.need("mamba_dt_rank");
}

void read_jamba(HfFields& f, HfImport* out) {
  const HfShape s = read_shape(f);
  ModelSpec& m = out->model;
  apply_shape(f, s, &m);
  const uint32_t period = std::max<uint32_t>(1, f.get("attn_layer_period", 8));
  const uint32_t offset = f.get("attn_layer_offset", 4);
  const uint32_t expert_period = std::max<uint32_t>(1, f.get("expert_layer_period", 2));
  const uint32_t expert_offset = f.get("expert_layer_offset", 1);
  const uint32_t experts = f.need("num_experts"), top_k = f.need("num_experts_per_tok");
  const uint64_t h = s.hidden, inner = uint64_t{f.get("mamba_expand", 2)} * h;
  const uint64_t state = f.get("mamba_d_state", 16), kernel = f.get("mamba_d_conv", 4);
  const uint64_t rank = jamba_dt_rank(f, s.hidden);
  const bool proj_bias = f.flag("mamba_proj_bias", false);
  const bool conv_bias = f.flag("mamba_conv_bias", true);
  ParamCount& p = out->params;
  std::vector<LayerKind> kinds;
  for (uint32_t i = 0; i < s.layers; ++i) {
    p.other += 2 * h;  // input and pre-FFN norms
    if (i % period == offset) {
      add_attention(h, s.heads, s.kv_heads, s.head_dim, false, false, &p);
      kinds.push_back(LayerKind::kFull);
    } else {
      // in_proj, x_proj, dt_proj and out_proj; conv, dt bias, A, D and the dt/B/C norms.
      p.mixer_linear += h * 2 * inner + inner * (rank + 2 * state) + rank * inner + inner * h;
      p.other += inner * kernel + (conv_bias ? inner : 0) + inner + inner * state + inner + rank +
                 2 * state + (proj_bias ? 2 * inner + h : 0);
      kinds.push_back(LayerKind::kRecurrent);
    }
    if (i % expert_period == expert_offset) {
      add_moe(h, experts, top_k, s.intermediate, false, false, &p);
    } else {
      add_dense_ffn(h, s.intermediate, true, false, &p);
      ++m.num_dense_layers;
    }
  }
  add_embeddings(s, h, &p);
  set_experts(&m, experts, top_k, s.intermediate);
  LayerGroup recurrent;
  recurrent.conv_state_tokens = static_cast<uint32_t>(kernel - 1);
  recurrent.conv_dim = static_cast<uint32_t>(inner);
  recurrent.ssm_heads = static_cast<uint32_t>(inner);
  recurrent.ssm_head_dim = 1;
  recurrent.ssm_state_size = static_cast<uint32_t>(state);
  recurrent.state_dtype = state_dtype(f);
  set_layer_groups(f, kinds, 0, recurrent, &m);
}

void read_qwen3_next(HfFields& f, HfImport* out) {
  const HfShape s = read_shape(f, {.intermediate = 5632});  // Qwen3NextConfig's default
  ModelSpec& m = out->model;
  apply_shape(f, s, &m);
  const uint64_t h = s.hidden, key_heads = f.need("linear_num_key_heads");
  const uint64_t key_dim = f.need("linear_key_head_dim");
  const uint64_t value_heads = f.need("linear_num_value_heads");
  const uint64_t value_dim = f.need("linear_value_head_dim");
  const uint64_t kernel = f.need("linear_conv_kernel_dim");
  const uint64_t conv_dim = 2 * key_heads * key_dim + value_heads * value_dim;
  const uint32_t experts = f.need("num_experts"), top_k = f.need("num_experts_per_tok");
  const uint32_t width = f.need("moe_intermediate_size");
  const uint32_t shared = f.get("shared_expert_intermediate_size", 0);
  const bool bias = f.flag("attention_bias", false);
  std::vector<LayerKind> kinds = layer_types(f, s.layers);
  if (kinds.empty()) {
    const uint32_t interval = std::max<uint32_t>(1, f.get("full_attention_interval", 4));
    for (uint32_t i = 0; i < s.layers; ++i) {
      kinds.push_back((i + 1) % interval == 0 ? LayerKind::kFull : LayerKind::kRecurrent);
    }
  }
  const uint32_t step = std::max<uint32_t>(1, f.get("decoder_sparse_step", 1));
  const std::vector<uint32_t> dense = f.integers("mlp_only_layers");
  ParamCount& p = out->params;
  for (uint32_t i = 0; i < kinds.size(); ++i) {
    p.other += 2 * h;
    if (kinds[i] == LayerKind::kFull) {
      // Gated attention: q_proj also yields a per-head output gate; q and k RMSNorms.
      add_attention(h, s.heads, s.kv_heads, s.head_dim, bias, bias, &p);
      p.attention_linear += h * s.heads * s.head_dim;
      p.other += 2ull * s.head_dim + (bias ? uint64_t{s.heads} * s.head_dim : 0);
    } else {
      // in_proj_qkvz, in_proj_ba, out_proj; conv, dt_bias, A_log, the gated norm.
      p.mixer_linear += h * (2 * key_heads * key_dim + 2 * value_heads * value_dim) +
                        h * 2 * value_heads + value_heads * value_dim * h;
      p.other += conv_dim * kernel + 2 * value_heads + value_dim;
    }
    const bool moe = (i + 1) % step == 0 && std::find(dense.begin(), dense.end(), i) == dense.end();
    if (!moe) {
      add_dense_ffn(h, s.intermediate, true, false, &p);
      ++m.num_dense_layers;
      continue;
    }
    add_moe(h, experts, top_k, width, false, false, &p);
    if (shared > 0) {
      add_dense_ffn(h, shared, true, false, &p);
      p.other += h;  // shared_expert_gate
    }
  }
  add_embeddings(s, h, &p);
  set_experts(&m, experts, top_k, width);
  m.num_shared_experts = shared > 0 ? 1 : 0;
  m.shared_expert_intermediate_size = shared;
  LayerGroup recurrent;
  recurrent.conv_state_tokens = static_cast<uint32_t>(kernel - 1);
  recurrent.conv_dim = static_cast<uint32_t>(conv_dim);
  recurrent.ssm_heads = static_cast<uint32_t>(value_heads);
  recurrent.ssm_head_dim = static_cast<uint32_t>(value_dim);
  recurrent.ssm_state_size = static_cast<uint32_t>(key_dim);
  recurrent.state_dtype = state_dtype(f);
  set_layer_groups(f, kinds, f.get("sliding_window", 0), recurrent, &m);
}

constexpr std::array<HfArchitecture, 3> kHybrids = {{
    {"nemotron_h", "NemotronHForCausalLM", read_nemotron_h},
    {"jamba", "JambaForCausalLM", read_jamba},
    {"qwen3_next", "Qwen3NextForCausalLM", read_qwen3_next},
}};

}  // namespace

std::span<const HfArchitecture> hf_hybrid_architectures() { return kHybrids; }

}  // namespace kvsim
