// Readers for decoder-only transformers: the Llama family (Llama, Mistral, Mixtral, Qwen2,
// Qwen2-MoE, Qwen3, Qwen3-MoE, Phi-3), DeepSeek-V2/V3, Gemma-2/3, gpt-oss, OPT and GPT-2.
// Parameter formulas follow each architecture's transformers modeling code (see
// core/model/hf_config.h for what is counted).
#include <algorithm>
#include <array>

#include "core/model/hf_architectures.h"

namespace kvsim {
namespace {

enum class Moe : uint8_t { kDense, kMixtral, kQwen };
enum class Sliding : uint8_t { kNever, kEveryLayer, kQwenWindowLayers };

// How one member of the Llama family differs from Llama.
struct LlamaFlavor {
  bool qkv_bias = false;        // q, k, v biases always (Qwen2)
  bool attention_bias = false;  // reads attention_bias for q, k, v and o (Llama, Qwen3)
  bool qk_norm = false;         // RMSNorm over each q and k head (Qwen3)
  Moe moe = Moe::kDense;
  bool shared_expert = false;  // one gated shared expert + its sigmoid gate (Qwen2-MoE)
  Sliding sliding = Sliding::kNever;
};

// Which layers are MoE (Qwen MoE: not in mlp_only_layers and every decoder_sparse_step-th).
std::vector<bool> moe_layers(HfFields& f, uint32_t layers, Moe moe) {
  std::vector<bool> out(layers, moe != Moe::kDense);
  if (moe != Moe::kQwen) return out;
  const uint32_t step = std::max<uint32_t>(1, f.get("decoder_sparse_step", 1));
  const std::vector<uint32_t> dense = f.integers("mlp_only_layers");
  for (uint32_t i = 0; i < layers; ++i) {
    out[i] = (i + 1) % step == 0 && std::find(dense.begin(), dense.end(), i) == dense.end();
  }
  return out;
}

std::vector<LayerKind> llama_layer_kinds(HfFields& f, uint32_t layers, Sliding sliding,
                                         uint32_t window) {
  std::vector<LayerKind> kinds = layer_types(f, layers);
  if (!kinds.empty()) return kinds;
  kinds.assign(layers, LayerKind::kFull);
  if (window == 0) return kinds;
  if (sliding == Sliding::kEveryLayer) kinds.assign(layers, LayerKind::kSlidingWindow);
  if (sliding == Sliding::kQwenWindowLayers && f.flag("use_sliding_window", false)) {
    const uint32_t first = f.get("max_window_layers", layers);
    for (uint32_t i = first; i < layers; ++i) kinds[i] = LayerKind::kSlidingWindow;
  }
  return kinds;
}

void read_llama_family(HfFields& f, HfImport* out, const LlamaFlavor& flavor) {
  const bool moe = flavor.moe != Moe::kDense;
  const HfShape s = read_shape(f);
  ModelSpec& m = out->model;
  apply_shape(f, s, &m);
  const bool bias = flavor.attention_bias && f.flag("attention_bias", false);
  const bool mlp_bias = f.flag("mlp_bias", false);
  uint32_t experts = 0, top_k = 0, expert_width = 0;
  if (flavor.moe == Moe::kMixtral) {
    experts = f.need("num_local_experts");
    expert_width = s.intermediate;
  } else if (flavor.moe == Moe::kQwen) {
    experts = f.need("num_experts");
    expert_width = f.need("moe_intermediate_size");
  }
  if (moe) top_k = f.need("num_experts_per_tok");
  const uint32_t shared_width =
      flavor.shared_expert ? f.need("shared_expert_intermediate_size") : 0;
  const std::vector<bool> is_moe = moe_layers(f, s.layers, flavor.moe);
  ParamCount& p = out->params;
  for (uint32_t i = 0; i < s.layers; ++i) {
    add_attention(s.hidden, s.heads, s.kv_heads, s.head_dim, flavor.qkv_bias || bias, bias, &p);
    if (flavor.qk_norm) p.other += 2ull * s.head_dim;
    p.other += 2ull * s.hidden;  // input and post-attention RMSNorm
    if (!is_moe[i]) {
      add_dense_ffn(s.hidden, s.intermediate, /*gated=*/true, mlp_bias, &p);
      ++m.num_dense_layers;
      continue;
    }
    add_moe(s.hidden, experts, top_k, expert_width, false, false, &p);
    if (flavor.shared_expert) {
      add_dense_ffn(s.hidden, shared_width, /*gated=*/true, false, &p);
      p.other += s.hidden;  // shared_expert_gate: hidden -> 1
    }
  }
  add_embeddings(s, s.hidden, &p);
  if (moe) {
    m.num_experts = experts;
    m.num_experts_per_token = top_k;
    m.moe_intermediate_size = expert_width;
    m.num_shared_experts = flavor.shared_expert ? 1 : 0;
    m.shared_expert_intermediate_size = shared_width;
  } else {
    m.num_dense_layers = 0;
  }
  const uint32_t window = f.get("sliding_window", 0);
  set_layer_groups(f, llama_layer_kinds(f, s.layers, flavor.sliding, window), window, {}, &m);
}

void read_llama(HfFields& f, HfImport* out) { read_llama_family(f, out, {.attention_bias = true}); }
void read_mistral(HfFields& f, HfImport* out) {
  read_llama_family(f, out, {.sliding = Sliding::kEveryLayer});
}
void read_mixtral(HfFields& f, HfImport* out) {
  read_llama_family(f, out, {.moe = Moe::kMixtral, .sliding = Sliding::kEveryLayer});
}
void read_phi3(HfFields& f, HfImport* out) {
  read_llama_family(f, out, {.sliding = Sliding::kEveryLayer});
}
void read_qwen2(HfFields& f, HfImport* out) {
  read_llama_family(f, out, {.qkv_bias = true, .sliding = Sliding::kQwenWindowLayers});
}
void read_qwen2_moe(HfFields& f, HfImport* out) {
  read_llama_family(f, out,
                    {.qkv_bias = true,
                     .moe = Moe::kQwen,
                     .shared_expert = true,
                     .sliding = Sliding::kQwenWindowLayers});
}
void read_qwen3(HfFields& f, HfImport* out) {
  read_llama_family(
      f, out, {.attention_bias = true, .qk_norm = true, .sliding = Sliding::kQwenWindowLayers});
}
void read_qwen3_moe(HfFields& f, HfImport* out) {
  read_llama_family(f, out,
                    {.attention_bias = true,
                     .qk_norm = true,
                     .moe = Moe::kQwen,
                     .sliding = Sliding::kQwenWindowLayers});
}

// DeepSeek-V2/V3: multi-head latent attention, routed + shared experts, the first
// first_k_dense_replace layers dense; V3 adds a per-expert score-correction bias.
void read_deepseek(HfFields& f, HfImport* out, bool v3) {
  HfShape s = read_shape(f);
  ModelSpec& m = out->model;
  m.q_lora_rank = f.get("q_lora_rank", 0);
  m.kv_lora_rank = f.need("kv_lora_rank");
  m.qk_nope_head_dim = f.need("qk_nope_head_dim");
  m.qk_rope_head_dim = f.need("qk_rope_head_dim");
  m.v_head_dim = f.need("v_head_dim");
  s.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  apply_shape(f, s, &m);
  m.attention = AttentionKind::kMla;
  const uint64_t h = s.hidden, heads = s.heads, qk = s.head_dim;
  const uint32_t experts = f.need("n_routed_experts");
  const uint32_t top_k = f.need("num_experts_per_tok");
  const uint32_t shared = f.get("n_shared_experts", 0);
  const uint32_t width = f.need("moe_intermediate_size");
  const uint32_t first_dense = f.get("first_k_dense_replace", 0);
  const uint32_t frequency = std::max<uint32_t>(1, f.get("moe_layer_freq", 1));
  ParamCount& p = out->params;
  for (uint32_t i = 0; i < s.layers; ++i) {
    if (m.q_lora_rank > 0) {
      p.attention_linear += h * m.q_lora_rank + uint64_t{m.q_lora_rank} * heads * qk;
      p.other += m.q_lora_rank;  // q_a_layernorm
    } else {
      p.attention_linear += h * heads * qk;
    }
    p.attention_linear += h * (m.kv_lora_rank + m.qk_rope_head_dim) +
                          uint64_t{m.kv_lora_rank} * heads * (m.qk_nope_head_dim + m.v_head_dim) +
                          heads * m.v_head_dim * h;
    p.other += m.kv_lora_rank + 2 * h;  // kv_a_layernorm, input and post-attention norms
    if (i < first_dense || i % frequency != 0) {
      add_dense_ffn(h, s.intermediate, true, false, &p);
      ++m.num_dense_layers;
      continue;
    }
    add_moe(h, experts, top_k, width, /*router_bias=*/v3, false, &p);
    add_dense_ffn(h, uint64_t{shared} * width, true, false, &p);
  }
  add_embeddings(s, h, &p);
  m.num_experts = experts;
  m.num_experts_per_token = top_k;
  m.num_shared_experts = shared;
  m.moe_intermediate_size = width;
}

void read_deepseek_v2(HfFields& f, HfImport* out) { read_deepseek(f, out, false); }
void read_deepseek_v3(HfFields& f, HfImport* out) { read_deepseek(f, out, true); }

// A SigLIP vision tower and Gemma-3's projector (Gemma3ForConditionalGeneration).
uint64_t gemma3_vision_params(const HfFields& f, uint64_t text_hidden) {
  const auto vision = f.root().find("vision_config");
  if (vision == f.root().end() || !vision->is_object()) return 0;
  HfFields v(*vision, f.file() + " vision_config");
  const uint64_t n = v.need("hidden_size"), inner = v.need("intermediate_size");
  const uint64_t layers = v.need("num_hidden_layers"), patch = v.need("patch_size");
  const uint64_t image = v.need("image_size"), channels = v.get("num_channels", 3);
  if (!v.status().is_ok() || patch == 0) return 0;
  const uint64_t embeddings =
      channels * patch * patch * n + n + (image / patch) * (image / patch) * n;
  const uint64_t layer = 4 * (n * n + n) + 4 * n + (n * inner + inner) + (inner * n + n);
  const uint64_t projector = n * text_hidden + n;  // mm_input_projection + mm_soft_emb_norm
  return embeddings + layers * layer + 2 * n + projector;
}

// Gemma-2 and Gemma-3: four norms per layer, tied embeddings, sliding layers interleaved
// (Gemma-2 even layers, Gemma-3 all but every sliding_window_pattern-th), q/k norms in Gemma-3.
void read_gemma(HfFields& f, HfImport* out, bool gemma3) {
  // The Gemma config classes' defaults (Gemma3TextConfig: vocab 262208, 131072 positions).
  HfShape s = read_shape(
      f, {.tie = true, .vocab = gemma3 ? 262208u : 256000u, .positions = gemma3 ? 131072u : 8192u});
  if (f.find("head_dim") == nullptr) s.head_dim = 256;
  ModelSpec& m = out->model;
  apply_shape(f, s, &m);
  ParamCount& p = out->params;
  for (uint32_t i = 0; i < s.layers; ++i) {
    add_attention(s.hidden, s.heads, s.kv_heads, s.head_dim, false, false, &p);
    if (gemma3) p.other += 2ull * s.head_dim;
    add_dense_ffn(s.hidden, s.intermediate, true, false, &p);
    p.other += 4ull * s.hidden;
  }
  add_embeddings(s, s.hidden, &p);
  if (gemma3) p.vision = gemma3_vision_params(f, s.hidden);
  std::vector<LayerKind> kinds = layer_types(f, s.layers);
  if (kinds.empty()) {
    const uint32_t pattern = std::max<uint32_t>(1, f.get("sliding_window_pattern", 6));
    for (uint32_t i = 0; i < s.layers; ++i) {
      const bool sliding = gemma3 ? (i + 1) % pattern != 0 : i % 2 == 0;
      kinds.push_back(sliding ? LayerKind::kSlidingWindow : LayerKind::kFull);
    }
  }
  set_layer_groups(f, kinds, f.get("sliding_window", 4096), {}, &m);
}

void read_gemma2(HfFields& f, HfImport* out) { read_gemma(f, out, false); }
void read_gemma3(HfFields& f, HfImport* out) { read_gemma(f, out, true); }

// gpt-oss: biased attention with a learned sink logit per head, alternating sliding/full
// layers, every layer MoE with biased experts and router.
void read_gpt_oss(HfFields& f, HfImport* out) {
  const HfShape s = read_shape(f);
  ModelSpec& m = out->model;
  apply_shape(f, s, &m);
  const uint32_t experts = f.need("num_local_experts");
  const uint32_t top_k = f.find("num_experts_per_tok") != nullptr ? f.need("num_experts_per_tok")
                                                                  : f.need("experts_per_token");
  const bool bias = f.flag("attention_bias", true);
  ParamCount& p = out->params;
  for (uint32_t i = 0; i < s.layers; ++i) {
    add_attention(s.hidden, s.heads, s.kv_heads, s.head_dim, bias, bias, &p);
    p.other += s.heads + 2ull * s.hidden;  // sinks, two norms
    add_moe(s.hidden, experts, top_k, s.intermediate, true, true, &p);
  }
  add_embeddings(s, s.hidden, &p);
  m.num_experts = experts;
  m.num_experts_per_token = top_k;
  m.moe_intermediate_size = s.intermediate;
  std::vector<LayerKind> kinds = layer_types(f, s.layers);
  if (kinds.empty()) {
    for (uint32_t i = 0; i < s.layers; ++i) {
      kinds.push_back(i % 2 == 0 ? LayerKind::kSlidingWindow : LayerKind::kFull);
    }
  }
  set_layer_groups(f, kinds, f.get("sliding_window", 128), {}, &m);
}

// OPT: learned positions (offset 2), LayerNorms with biases, biased attention and FFN,
// optional projections when word_embed_proj_dim differs from the width.
void read_opt(HfFields& f, HfImport* out) {
  const HfShape s = read_shape(f, {.tie = true, .intermediate = f.need("ffn_dim")});
  ModelSpec& m = out->model;
  apply_shape(f, s, &m);
  m.gated_mlp = false;
  const uint64_t h = s.hidden, projected = f.get("word_embed_proj_dim", s.hidden);
  const bool bias = f.flag("enable_bias", true);
  ParamCount& p = out->params;
  for (uint32_t i = 0; i < s.layers; ++i) {
    add_attention(h, s.heads, s.heads, s.head_dim, bias, bias, &p);
    add_dense_ffn(h, s.intermediate, false, bias, &p);
    p.other += 4 * h;  // two LayerNorms, weight and bias
  }
  p.embedding = uint64_t{s.vocab} * projected + (uint64_t{m.max_position_embeddings} + 2) * h;
  p.lm_head = s.tie ? 0 : uint64_t{s.vocab} * projected;
  if (f.flag("do_layer_norm_before", true)) p.other += 2 * h;
  if (projected != h) p.other += 2 * projected * h;  // project_in, project_out
}

// GPT-2: fused biased attention and FFN, learned positions, LayerNorms, tied head.
void read_gpt2(HfFields& f, HfImport* out) {
  HfShape s;
  s.hidden = f.need_any({"n_embd", "hidden_size"});
  s.layers = f.need_any({"n_layer", "num_hidden_layers"});
  s.heads = f.need_any({"n_head", "num_attention_heads"});
  s.kv_heads = s.heads;
  s.head_dim = s.heads > 0 ? s.hidden / s.heads : 0;
  s.intermediate = f.get("n_inner", 4 * s.hidden);
  s.vocab = f.need("vocab_size");
  s.positions = f.need_any({"n_positions", "max_position_embeddings"});
  s.tie = f.flag("tie_word_embeddings", true);
  ModelSpec& m = out->model;
  apply_shape(f, s, &m);
  m.gated_mlp = false;
  ParamCount& p = out->params;
  for (uint32_t i = 0; i < s.layers; ++i) {
    add_attention(s.hidden, s.heads, s.heads, s.head_dim, true, true, &p);
    add_dense_ffn(s.hidden, s.intermediate, false, true, &p);
    p.other += 4ull * s.hidden;
  }
  add_embeddings(s, 2ull * s.hidden, &p);
  p.embedding += uint64_t{m.max_position_embeddings} * s.hidden;
}

constexpr std::array<HfArchitecture, 16> kDecoders = {{
    {"llama", "LlamaForCausalLM", read_llama},
    {"mistral", "MistralForCausalLM", read_mistral},
    {"mixtral", "MixtralForCausalLM", read_mixtral},
    {"qwen2", "Qwen2ForCausalLM", read_qwen2},
    {"qwen2_moe", "Qwen2MoeForCausalLM", read_qwen2_moe},
    {"qwen3", "Qwen3ForCausalLM", read_qwen3},
    {"qwen3_moe", "Qwen3MoeForCausalLM", read_qwen3_moe},
    {"deepseek_v2", "DeepseekV2ForCausalLM", read_deepseek_v2},
    {"deepseek_v3", "DeepseekV3ForCausalLM", read_deepseek_v3},
    {"gemma2", "Gemma2ForCausalLM", read_gemma2},
    {"gemma3", "Gemma3ForConditionalGeneration", read_gemma3},
    {"gemma3_text", "Gemma3ForCausalLM", read_gemma3},
    {"gpt_oss", "GptOssForCausalLM", read_gpt_oss},
    {"phi3", "Phi3ForCausalLM", read_phi3},
    {"opt", "OPTForCausalLM", read_opt},
    {"gpt2", "GPT2LMHeadModel", read_gpt2},
}};

}  // namespace

std::span<const HfArchitecture> hf_decoder_architectures() { return kDecoders; }

}  // namespace kvsim
