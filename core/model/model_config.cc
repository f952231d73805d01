#include "core/model/model_config.h"

#include "core/base/enum_names.h"
#include "core/config/config_reader.h"

namespace kvsim {
namespace {

// Upper bounds that reject absurd values while admitting every real model.
constexpr uint32_t kMaxLayers = 10'000;
constexpr uint32_t kMaxHeads = 65'536;
constexpr uint32_t kMaxHeadDim = 65'536;
constexpr uint32_t kMaxWidth = 1u << 26;
constexpr uint32_t kMaxPositions = 1u << 31;
constexpr uint32_t kMaxExperts = 1u << 20;
constexpr uint64_t kMaxParams = 10'000'000'000'000'000ull;  // 10^16

void read_model_shape(ConfigReader& r, ModelSpec& spec) {
  r.required("num_layers", &spec.num_layers, 1u, kMaxLayers);
  r.required("hidden_size", &spec.hidden_size, 1u, kMaxWidth);
  r.required("num_attention_heads", &spec.num_attention_heads, 1u, kMaxHeads);
  r.required("num_kv_heads", &spec.num_kv_heads, 1u, kMaxHeads);
  r.required("head_dim", &spec.head_dim, 1u, kMaxHeadDim);
  r.required("intermediate_size", &spec.intermediate_size, 1u, kMaxWidth);
  r.required("vocab_size", &spec.vocab_size, 1u, kMaxWidth * 16);
  r.required("max_position_embeddings", &spec.max_position_embeddings, 1u, kMaxPositions);
  r.required("num_params", &spec.num_params, 1ull, kMaxParams);
  spec.num_active_params = spec.num_params;
  r.optional("num_active_params", &spec.num_active_params, 1ull, kMaxParams);
  r.required_with("attention", &spec.attention, [](std::string_view text, AttentionKind* out) {
    KVSIM_ASSIGN_OR_RETURN(*out, parse_attention_kind(text));
    return Status::ok();
  });
  r.optional("sliding_window_tokens", &spec.sliding_window_tokens, 1u, kMaxPositions);
  r.optional("kv_lora_rank", &spec.kv_lora_rank, 1u, kMaxHeadDim);
  r.optional("qk_rope_head_dim", &spec.qk_rope_head_dim, 1u, kMaxHeadDim);
  r.optional("q_lora_rank", &spec.q_lora_rank, 1u, kMaxWidth);
  r.optional("qk_nope_head_dim", &spec.qk_nope_head_dim, 1u, kMaxHeadDim);
  r.optional("v_head_dim", &spec.v_head_dim, 1u, kMaxHeadDim);
}

void read_ffn(ConfigReader& r, ModelSpec& spec) {
  r.optional("num_experts", &spec.num_experts, 1u, kMaxExperts);
  r.optional("num_experts_per_token", &spec.num_experts_per_token, 1u, kMaxExperts);
  r.optional("num_shared_experts", &spec.num_shared_experts, 1u, kMaxExperts);
  r.optional("moe_intermediate_size", &spec.moe_intermediate_size, 1u, kMaxWidth);
  r.optional("shared_expert_intermediate_size", &spec.shared_expert_intermediate_size, 1u,
             kMaxWidth);
  r.optional("num_dense_layers", &spec.num_dense_layers, 1u, kMaxLayers);
  r.optional("gated_mlp", &spec.gated_mlp);
  r.optional("tie_word_embeddings", &spec.tie_word_embeddings);
}

Status read_quantization(const ConfigNode& node, WeightQuantization* q) {
  ConfigReader r(node, "weight_quantization");
  r.required("method", &q->method);
  r.required_with("dtype", &q->dtype, parse_into<parse_dtype>);
  r.optional("group_size", &q->group_size, 1u, kMaxWidth);
  r.optional("group_bits", &q->group_bits, 1u, 1024u);
  r.required("num_params", &q->num_params, 1ull, kMaxParams);
  return r.finish();
}

// One group; fields left out take the model's (see core/model/model_config.h).
StatusOr<LayerGroup> read_group(const ConfigNode& node, const ModelSpec& spec) {
  LayerGroup g;
  ConfigReader r(node, "layer group");
  r.required_with("kind", &g.kind, [](std::string_view text, LayerKind* out) {
    KVSIM_ASSIGN_OR_RETURN(*out, parse_layer_kind(text));
    return Status::ok();
  });
  r.required("num_layers", &g.num_layers, 1u, kMaxLayers);
  const bool attention = g.kind == LayerKind::kFull || g.kind == LayerKind::kSlidingWindow;
  if (attention) {
    g.num_kv_heads = spec.num_kv_heads;
    g.head_dim = spec.head_dim;
  } else if (g.kind == LayerKind::kMla) {
    g.kv_lora_rank = spec.kv_lora_rank;
    g.qk_rope_head_dim = spec.qk_rope_head_dim;
  }
  r.optional("num_kv_heads", &g.num_kv_heads, 1u, kMaxHeads);
  r.optional("head_dim", &g.head_dim, 1u, kMaxHeadDim);
  r.optional("v_head_dim", &g.v_head_dim, 1u, kMaxHeadDim);
  r.optional("window_tokens", &g.window_tokens, 1u, kMaxPositions);
  r.optional("kv_lora_rank", &g.kv_lora_rank, 1u, kMaxHeadDim);
  r.optional("qk_rope_head_dim", &g.qk_rope_head_dim, 1u, kMaxHeadDim);
  r.optional("conv_state_tokens", &g.conv_state_tokens, 1u, kMaxWidth);
  r.optional("conv_dim", &g.conv_dim, 1u, kMaxWidth);
  r.optional("ssm_heads", &g.ssm_heads, 1u, kMaxWidth);
  r.optional("ssm_head_dim", &g.ssm_head_dim, 1u, kMaxHeadDim);
  r.optional("ssm_state_size", &g.ssm_state_size, 1u, kMaxHeadDim);
  r.optional_with("state_dtype", &g.state_dtype, parse_into<parse_dtype>);
  KVSIM_RETURN_IF_ERROR(r.finish());
  return g;
}

Status read_groups(const ConfigNode& list, ModelSpec* spec) {
  if (!list.is_sequence()) {
    return error_at(list.mark(),
                    "layer_groups must be a list of groups such as "
                    "[{kind: full, num_layers: 10}]");
  }
  for (const ConfigNode& item : list.items()) {
    KVSIM_ASSIGN_OR_RETURN(LayerGroup group, read_group(item, *spec));
    spec->layer_groups.push_back(group);
  }
  return Status::ok();
}

void put(ConfigNode& map, const char* key, uint64_t value, uint64_t unless = 0) {
  if (value != unless) map.set(key, ConfigNode::scalar(std::to_string(value)));
}

void put(ConfigNode& map, const char* key, std::string_view text) {
  if (!text.empty()) map.set(key, ConfigNode::scalar(std::string(text)));
}

ConfigNode group_to_config(const LayerGroup& g, const ModelSpec& model) {
  ConfigNode out = ConfigNode::map();
  put(out, "kind", layer_kind_name(g.kind));
  put(out, "num_layers", g.num_layers);
  const bool attention = g.kind == LayerKind::kFull || g.kind == LayerKind::kSlidingWindow;
  put(out, "num_kv_heads", g.num_kv_heads, attention ? model.num_kv_heads : 0);
  put(out, "head_dim", g.head_dim, attention ? model.head_dim : 0);
  put(out, "v_head_dim", g.v_head_dim);
  put(out, "window_tokens", g.window_tokens);
  const bool mla = g.kind == LayerKind::kMla;
  put(out, "kv_lora_rank", g.kv_lora_rank, mla ? model.kv_lora_rank : 0);
  put(out, "qk_rope_head_dim", g.qk_rope_head_dim, mla ? model.qk_rope_head_dim : 0);
  put(out, "conv_state_tokens", g.conv_state_tokens);
  put(out, "conv_dim", g.conv_dim);
  put(out, "ssm_heads", g.ssm_heads);
  put(out, "ssm_head_dim", g.ssm_head_dim);
  put(out, "ssm_state_size", g.ssm_state_size);
  if (g.kind == LayerKind::kRecurrent) put(out, "state_dtype", dtype_name(g.state_dtype));
  return out;
}

ConfigNode quantization_to_config(const WeightQuantization& q) {
  ConfigNode out = ConfigNode::map();
  put(out, "method", q.method);
  put(out, "dtype", dtype_name(q.dtype));
  put(out, "group_size", q.group_size);
  put(out, "group_bits", q.group_bits);
  put(out, "num_params", q.num_params);
  return out;
}

}  // namespace

StatusOr<ModelSpec> model_from_config(const ConfigNode& node, const std::string& default_name) {
  ModelSpec spec;
  spec.name = default_name;
  ConfigReader r(node, "model preset");
  r.optional("name", &spec.name);
  r.optional("source", &spec.source);
  r.allow("description");
  read_model_shape(r, spec);
  read_ffn(r, spec);
  const ConfigNode* quantization = r.child("weight_quantization");
  const ConfigNode* groups = r.child("layer_groups");
  KVSIM_RETURN_IF_ERROR(r.finish());
  if (quantization != nullptr) {
    KVSIM_RETURN_IF_ERROR(read_quantization(*quantization, &spec.weight_quantization));
  }
  if (groups != nullptr) KVSIM_RETURN_IF_ERROR(read_groups(*groups, &spec));
  Status valid = validate_model(spec);
  if (!valid.is_ok()) return error_at(node.mark(), valid.message());
  return spec;
}

ConfigNode model_to_config(const ModelSpec& model, const std::string& description) {
  ConfigNode out = ConfigNode::map();
  put(out, "name", model.name);
  put(out, "description", description);
  put(out, "source", model.source);
  put(out, "attention", attention_kind_name(model.attention));
  put(out, "num_layers", model.num_layers);
  put(out, "hidden_size", model.hidden_size);
  put(out, "num_attention_heads", model.num_attention_heads);
  put(out, "num_kv_heads", model.num_kv_heads);
  put(out, "head_dim", model.head_dim);
  put(out, "intermediate_size", model.intermediate_size);
  put(out, "vocab_size", model.vocab_size);
  put(out, "max_position_embeddings", model.max_position_embeddings);
  put(out, "num_params", model.num_params);
  put(out, "num_active_params", model.num_active_params, model.num_params);
  put(out, "sliding_window_tokens", model.sliding_window_tokens);
  put(out, "kv_lora_rank", model.kv_lora_rank);
  put(out, "qk_rope_head_dim", model.qk_rope_head_dim);
  put(out, "q_lora_rank", model.q_lora_rank);
  put(out, "qk_nope_head_dim", model.qk_nope_head_dim);
  put(out, "v_head_dim", model.v_head_dim);
  put(out, "num_experts", model.num_experts);
  put(out, "num_experts_per_token", model.num_experts_per_token);
  put(out, "num_shared_experts", model.num_shared_experts);
  put(out, "moe_intermediate_size", model.moe_intermediate_size);
  put(out, "shared_expert_intermediate_size", model.shared_expert_intermediate_size);
  put(out, "num_dense_layers", model.num_dense_layers);
  if (!model.gated_mlp) put(out, "gated_mlp", "false");
  if (model.tie_word_embeddings) put(out, "tie_word_embeddings", "true");
  if (!model.weight_quantization.method.empty()) {
    out.set("weight_quantization", quantization_to_config(model.weight_quantization));
  }
  if (!model.layer_groups.empty()) {
    ConfigNode groups = ConfigNode::sequence();
    for (const LayerGroup& g : model.layer_groups) groups.push_back(group_to_config(g, model));
    out.set("layer_groups", groups);
  }
  return out;
}

}  // namespace kvsim
