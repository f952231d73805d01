// ModelArch: the architecture a cost model needs beyond the KV geometry of ModelSpec — MoE
// experts, the MLP's form, tied embeddings, MLA's projections — read through one function so
// that the cost models do not depend on where ModelSpec keeps them.
//
// model_arch() reads them from ModelSpec (core/model/model_spec.h: what the config.json importer
// and the model YAML fill). For MLA without qk_nope_head_dim / v_head_dim it derives DeepSeek's
// shapes: qk_nope_head_dim = head_dim - qk_rope_head_dim and v_head_dim = qk_nope_head_dim.
// An MoE preset without expert fields (num_active_params < num_params) is costed as a dense
// model of its active parameters (OperatorCostModel: dense_ffn_width_for_active_params).
#pragma once

#include <cstdint>

#include "core/model/model_spec.h"

namespace kvsim::sim {

struct ModelArch {
  uint32_t num_experts = 0;                      // routed experts per MoE layer; 0 = dense
  uint32_t num_experts_per_token = 0;            // top-k
  uint32_t moe_intermediate_size = 0;            // FFN width of one routed expert
  uint32_t shared_expert_intermediate_size = 0;  // FFN width of all shared experts together
  uint32_t num_dense_layers = 0;                 // leading layers with a dense FFN (MoE models)
  bool gated_mlp = true;                         // SwiGLU-style: up and gate projections
  bool tie_word_embeddings = false;              // LM head shares the embedding's weights
  // MLA (attention == kMla):
  uint32_t q_lora_rank = 0;  // 0 = queries projected directly from the hidden state
  uint32_t qk_nope_head_dim = 0;
  uint32_t v_head_dim = 0;
};

ModelArch model_arch(const ModelSpec& model);

}  // namespace kvsim::sim
