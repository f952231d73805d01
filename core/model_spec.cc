#include "core/model_spec.h"

#include <fmt/format.h>

#include "core/enum_names.h"

namespace kvsim {
namespace {

constexpr EnumNames<AttentionKind, 4> kKindNames{{{
    {AttentionKind::kMha, "mha"},
    {AttentionKind::kGqa, "gqa"},
    {AttentionKind::kMqa, "mqa"},
    {AttentionKind::kMla, "mla"},
}}};

Status field_error(const ModelSpec& model, const std::string& message) {
  return Status::invalid_argument("model '" + model.name + "': " + message);
}

}  // namespace

std::string_view attention_kind_name(AttentionKind kind) { return kKindNames.name(kind); }

StatusOr<AttentionKind> parse_attention_kind(std::string_view name) {
  return kKindNames.parse(name, "attention kind");
}

Status validate_model(const ModelSpec& model) {
  if (model.num_layers == 0) return field_error(model, "num_layers must be > 0");
  if (model.num_attention_heads == 0) return field_error(model, "num_attention_heads must be > 0");
  if (model.num_kv_heads == 0) return field_error(model, "num_kv_heads must be > 0");
  if (model.head_dim == 0) return field_error(model, "head_dim must be > 0");
  if (model.num_attention_heads % model.num_kv_heads != 0) {
    return field_error(model, fmt::format("num_attention_heads ({}) must be a multiple of "
                                          "num_kv_heads ({})",
                                          model.num_attention_heads, model.num_kv_heads));
  }
  if (model.num_active_params > model.num_params) {
    return field_error(model, "num_active_params must not exceed num_params");
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
      (model.kv_lora_rank != 0 || model.qk_rope_head_dim != 0)) {
    return field_error(model, "kv_lora_rank and qk_rope_head_dim apply to attention 'mla' only");
  }
  return Status::ok();
}

}  // namespace kvsim
