// ModelSpec <-> its YAML map (a ConfigNode): the model preset format.
//
//   name: my-model                  # optional (default: the file stem)
//   source: "..."                   # optional: where the figures come from
//   description: "..."              # optional: one line for `kvsim presets`
//   attention: gqa                  # mha | gqa | mqa | mla
//   num_layers, hidden_size, num_attention_heads, num_kv_heads, head_dim,
//   intermediate_size, vocab_size, max_position_embeddings, num_params   # required
//   num_active_params, sliding_window_tokens, kv_lora_rank, qk_rope_head_dim, q_lora_rank,
//   qk_nope_head_dim, v_head_dim, num_experts, num_experts_per_token, num_shared_experts,
//   moe_intermediate_size, shared_expert_intermediate_size, num_dense_layers,
//   gated_mlp (default true), tie_word_embeddings (default false)          # optional
//   weight_quantization: {method, dtype, group_size, group_bits, num_params}
//   layer_groups:                   # hybrids only; see core/model/model_spec.h
//     - {kind: sliding_window, num_layers: 52, window_tokens: 1024}
//     - {kind: full, num_layers: 10}
//     - {kind: recurrent, num_layers: 24, conv_state_tokens: 3, conv_dim: 10240,
//        ssm_heads: 128, ssm_head_dim: 64, ssm_state_size: 128, state_dtype: bf16}
// A group's num_kv_heads, head_dim (and an mla group's kv_lora_rank, qk_rope_head_dim) default
// to the model's. Every field is range-checked, unknown fields are rejected with the valid
// ones, and errors name file:line:column.
#pragma once

#include <string>

#include "core/base/status.h"
#include "core/config/config_node.h"
#include "core/model/model_spec.h"

namespace kvsim {

// `default_name` is used when the map has no `name:` field (the preset's file stem).
StatusOr<ModelSpec> model_from_config(const ConfigNode& node, const std::string& default_name);

// The map model_from_config reads back to the same ModelSpec (fields at their defaults are
// left out; `description`, which ModelSpec does not keep, is written when non-empty).
ConfigNode model_to_config(const ModelSpec& model, const std::string& description = "");

}  // namespace kvsim
