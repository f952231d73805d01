#include "simulator/cost/model_arch.h"

namespace kvsim::sim {

ModelArch model_arch(const ModelSpec& model) {
  ModelArch arch;
  arch.num_experts = model.num_experts;
  arch.num_experts_per_token = model.num_experts_per_token;
  arch.moe_intermediate_size = model.moe_intermediate_size;
  arch.shared_expert_intermediate_size =
      model.shared_expert_intermediate_size > 0
          ? model.shared_expert_intermediate_size
          : model.num_shared_experts * model.moe_intermediate_size;
  arch.num_dense_layers = model.num_dense_layers;
  arch.gated_mlp = model.gated_mlp;
  arch.tie_word_embeddings = model.tie_word_embeddings;
  if (model.attention == AttentionKind::kMla) {
    arch.q_lora_rank = model.q_lora_rank;
    // Without the fields, DeepSeek's shapes: the head less its rotary part, values alike.
    const uint32_t nope =
        model.head_dim > model.qk_rope_head_dim ? model.head_dim - model.qk_rope_head_dim : 0;
    arch.qk_nope_head_dim = model.qk_nope_head_dim > 0 ? model.qk_nope_head_dim : nope;
    arch.v_head_dim = model.v_head_dim > 0 ? model.v_head_dim : arch.qk_nope_head_dim;
  }
  return arch;
}

}  // namespace kvsim::sim
