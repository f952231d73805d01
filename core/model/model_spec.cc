#include "core/model/model_spec.h"

#include <fmt/format.h>

#include "core/base/checked_math.h"
#include "core/base/enum_names.h"

namespace kvsim {
namespace {

constexpr EnumNames<AttentionKind, 4> kKindNames{{{
    {AttentionKind::kMha, "mha"},
    {AttentionKind::kGqa, "gqa"},
    {AttentionKind::kMqa, "mqa"},
    {AttentionKind::kMla, "mla"},
}}};

constexpr EnumNames<LayerKind, 5> kLayerKindNames{{{
    {LayerKind::kFull, "full"},
    {LayerKind::kSlidingWindow, "sliding_window"},
    {LayerKind::kMla, "mla"},
    {LayerKind::kRecurrent, "recurrent"},
    {LayerKind::kNone, "none"},
}}};

Status field_error(const ModelSpec& model, const std::string& message) {
  return Status::invalid_argument(fmt::format("model '{}': {}", model.name, message));
}

Status check_head_counts(const ModelSpec& model) {
  if (model.num_attention_heads % model.num_kv_heads != 0) {
    return field_error(model, fmt::format("num_attention_heads ({}) must be a multiple of "
                                          "num_kv_heads ({})",
                                          model.num_attention_heads, model.num_kv_heads));
  }
  switch (model.attention) {
    case AttentionKind::kMha:
      if (model.num_kv_heads != model.num_attention_heads) {
        return field_error(model, "attention 'mha' needs num_kv_heads == num_attention_heads");
      }
      break;
    case AttentionKind::kMqa:
      if (model.num_kv_heads != 1)
        return field_error(model, "attention 'mqa' needs num_kv_heads 1");
      break;
    case AttentionKind::kGqa:
      if (model.num_kv_heads == 1 || model.num_kv_heads == model.num_attention_heads) {
        return field_error(model, "attention 'gqa' needs 1 < num_kv_heads < num_attention_heads");
      }
      break;
    case AttentionKind::kMla:
      if (model.kv_lora_rank == 0) return field_error(model, "attention 'mla' needs kv_lora_rank");
      break;
  }
  if (model.attention != AttentionKind::kMla &&
      (model.kv_lora_rank != 0 || model.qk_rope_head_dim != 0 || model.q_lora_rank != 0 ||
       model.qk_nope_head_dim != 0)) {
    return field_error(model,
                       "kv_lora_rank, qk_rope_head_dim, q_lora_rank and qk_nope_head_dim apply "
                       "to attention 'mla' only");
  }
  return Status::ok();
}

Status check_experts(const ModelSpec& model) {
  if (model.num_experts == 0) {
    if (model.num_experts_per_token != 0 || model.moe_intermediate_size != 0 ||
        model.num_shared_experts != 0 || model.shared_expert_intermediate_size != 0 ||
        model.num_dense_layers != 0) {
      return field_error(model, "expert fields need num_experts > 0");
    }
    return Status::ok();
  }
  if (model.num_experts_per_token == 0 || model.num_experts_per_token > model.num_experts) {
    return field_error(model, "num_experts_per_token must be in [1, num_experts]");
  }
  if (model.moe_intermediate_size == 0) {
    return field_error(model, "a MoE model needs moe_intermediate_size");
  }
  if (model.num_dense_layers >= model.num_layers) {
    return field_error(model, "num_dense_layers must be < num_layers");
  }
  return Status::ok();
}

// The rules for one group's fields; `where` names it in messages ("layer_groups[2]").
Status check_group(const ModelSpec& model, const LayerGroup& g, const std::string& where) {
  const auto error = [&](const std::string& message) {
    return field_error(model,
                       where + " (" + std::string(layer_kind_name(g.kind)) + "): " + message);
  };
  if (g.num_layers == 0) return error("num_layers must be > 0");
  const bool attention = g.kind == LayerKind::kFull || g.kind == LayerKind::kSlidingWindow;
  const bool recurrent = g.kind == LayerKind::kRecurrent;
  if (attention && (g.num_kv_heads == 0 || g.head_dim == 0)) {
    return error("needs num_kv_heads and head_dim");
  }
  if (!attention && (g.num_kv_heads != 0 || g.head_dim != 0 || g.v_head_dim != 0)) {
    return error("num_kv_heads, head_dim and v_head_dim apply to full and sliding_window only");
  }
  if ((g.kind == LayerKind::kSlidingWindow) != (g.window_tokens > 0)) {
    return error("window_tokens is required for sliding_window and applies to it alone");
  }
  if ((g.kind == LayerKind::kMla) != (g.kv_lora_rank > 0)) {
    return error("kv_lora_rank is required for mla and applies to it alone");
  }
  if (g.kind != LayerKind::kMla && g.qk_rope_head_dim != 0) {
    return error("qk_rope_head_dim applies to mla only");
  }
  const uint64_t state = uint64_t{g.conv_state_tokens} * g.conv_dim +
                         uint64_t{g.ssm_heads} * g.ssm_head_dim * g.ssm_state_size;
  if (recurrent && state == 0) {
    return error(
        "needs a state: conv_state_tokens x conv_dim or ssm_heads x ssm_head_dim x "
        "ssm_state_size");
  }
  if (!recurrent &&
      (g.conv_state_tokens | g.conv_dim | g.ssm_heads | g.ssm_head_dim | g.ssm_state_size) != 0) {
    return error("conv_* and ssm_* apply to recurrent only");
  }
  if (attention && model.attention == AttentionKind::kMla) {
    return error("an attention 'mla' model caches its attention layers as mla groups");
  }
  if (g.kind == LayerKind::kMla && model.attention != AttentionKind::kMla) {
    return error("an mla group needs attention 'mla'");
  }
  return Status::ok();
}

Status check_groups(const ModelSpec& model) {
  if (model.layer_groups.empty()) return Status::ok();
  if (model.sliding_window_tokens != 0) {
    return field_error(model,
                       "give sliding_window_tokens or layer_groups, not both (a sliding-window "
                       "group carries its own window_tokens)");
  }
  uint64_t layers = 0;
  for (size_t i = 0; i < model.layer_groups.size(); ++i) {
    KVSIM_RETURN_IF_ERROR(
        check_group(model, model.layer_groups[i], fmt::format("layer_groups[{}]", i)));
    layers += model.layer_groups[i].num_layers;
  }
  if (layers != model.num_layers) {
    return field_error(model, fmt::format("the layer_groups hold {} layers; num_layers is {}",
                                          layers, model.num_layers));
  }
  return Status::ok();
}

Status check_quantization(const ModelSpec& model) {
  const WeightQuantization& q = model.weight_quantization;
  if (q.method.empty()) {
    if (q.num_params != 0 || q.group_size != 0 || q.group_bits != 0) {
      return field_error(model, "weight_quantization needs a method");
    }
    return Status::ok();
  }
  if (q.num_params == 0 || q.num_params > model.num_params) {
    return field_error(model, "weight_quantization.num_params must be in [1, num_params]");
  }
  if ((q.group_size == 0) != (q.group_bits == 0)) {
    return field_error(model, "weight_quantization: give group_size and group_bits together");
  }
  return Status::ok();
}

}  // namespace

std::string_view attention_kind_name(AttentionKind kind) { return kKindNames.name(kind); }

StatusOr<AttentionKind> parse_attention_kind(std::string_view name) {
  return kKindNames.parse(name, "attention kind");
}

std::string_view layer_kind_name(LayerKind kind) { return kLayerKindNames.name(kind); }

StatusOr<LayerKind> parse_layer_kind(std::string_view name) {
  return kLayerKindNames.parse(name, "layer kind");
}

Status validate_model(const ModelSpec& model) {
  if (model.num_layers == 0) return field_error(model, "num_layers must be > 0");
  if (model.num_attention_heads == 0) return field_error(model, "num_attention_heads must be > 0");
  if (model.num_kv_heads == 0) return field_error(model, "num_kv_heads must be > 0");
  if (model.head_dim == 0) return field_error(model, "head_dim must be > 0");
  if (model.num_active_params > model.num_params) {
    return field_error(model, "num_active_params must not exceed num_params");
  }
  KVSIM_RETURN_IF_ERROR(check_head_counts(model));
  KVSIM_RETURN_IF_ERROR(check_experts(model));
  KVSIM_RETURN_IF_ERROR(check_groups(model));
  return check_quantization(model);
}

std::vector<LayerGroup> model_layer_groups(const ModelSpec& model) {
  if (!model.layer_groups.empty()) return model.layer_groups;
  LayerGroup group;
  group.num_layers = model.num_layers;
  if (model.attention == AttentionKind::kMla) {
    group.kind = LayerKind::kMla;
    group.kv_lora_rank = model.kv_lora_rank;
    group.qk_rope_head_dim = model.qk_rope_head_dim;
    return {group};
  }
  group.kind = model.sliding_window_tokens > 0 ? LayerKind::kSlidingWindow : LayerKind::kFull;
  group.window_tokens = model.sliding_window_tokens;
  group.num_kv_heads = model.num_kv_heads;
  group.head_dim = model.head_dim;
  return {group};
}

std::vector<LayerGroup> cache_layer_groups(const ModelSpec& model) {
  std::vector<LayerGroup> groups;
  for (const LayerGroup& group : model_layer_groups(model)) {
    if (group.kind != LayerKind::kNone) groups.push_back(group);
  }
  return groups;
}

bool is_hybrid(const ModelSpec& model) {
  const std::vector<LayerGroup> groups = cache_layer_groups(model);
  return groups.size() > 1 || (groups.size() == 1 && groups.front().kind == LayerKind::kRecurrent);
}

uint32_t uniform_window_tokens(const ModelSpec& model) {
  if (is_hybrid(model)) return 0;
  const std::vector<LayerGroup> groups = cache_layer_groups(model);
  return groups.size() == 1 ? groups.front().window_tokens : 0;
}

std::string describe_layer_groups(const ModelSpec& model) {
  std::string out;
  for (const LayerGroup& group : model_layer_groups(model)) {
    if (!out.empty()) out += ", ";
    out += layer_kind_name(group.kind);
    if (group.kind == LayerKind::kSlidingWindow) {
      out += fmt::format(" W={}", group.window_tokens);
    }
    out += fmt::format(" x {} layers", group.num_layers);
  }
  return out;
}

uint64_t weight_bits(const ModelSpec& model, DType dense_dtype) {
  const WeightQuantization& q = model.weight_quantization;
  const uint64_t quantized = q.method.empty() ? 0 : q.num_params;
  uint64_t bits = (model.num_params - quantized) * dtype_bits(dense_dtype);
  bits += quantized * dtype_bits(q.dtype);
  if (q.group_size > 0) bits += ceil_div(quantized, q.group_size) * q.group_bits;
  return bits;
}

}  // namespace kvsim
