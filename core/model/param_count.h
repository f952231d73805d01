// ParamCount: a model's parameters counted from its architecture, split by what weight
// quantization touches (the linear layers of the decoder) and what it leaves alone.
//
// The importer (core/model/hf_config.h) fills one from a config.json following the transformers
// modeling code of each architecture; total() is the weights held in memory (a multimodal
// checkpoint's vision tower included, buffers and multi-token-prediction layers excluded) and
// active() what one token uses: everything but the routed experts it is not sent to.
#pragma once

#include <cstdint>

namespace kvsim {

struct ParamCount {
  uint64_t embedding = 0;         // input token embedding (+ learned position embeddings)
  uint64_t lm_head = 0;           // output projection; 0 when tied to the embedding
  uint64_t attention_linear = 0;  // attention projection matrices (q, k, v, o; MLA's ranks)
  uint64_t mlp_linear = 0;        // dense FFN and shared-expert matrices
  uint64_t expert_linear = 0;     // every routed expert's matrices
  uint64_t mixer_linear = 0;      // recurrent mixers' input and output projections
  uint64_t other = 0;             // norms, biases, routers, convolutions, sinks, SSM params
  uint64_t vision = 0;            // vision tower and projector of a multimodal checkpoint
  uint64_t inactive = 0;          // routed-expert params (matrices and biases) a token skips

  uint64_t total() const {
    return embedding + lm_head + attention_linear + mlp_linear + expert_linear + mixer_linear +
           other + vision;
  }
  uint64_t active() const { return total() - inactive; }
};

// Builders for the common pieces; each adds to `count`.
// Attention: q (heads x head_dim), k and v (kv_heads x head_dim) and o projections of a
// `hidden`-wide model; biases on q, k, v and/or o as the flags say.
void add_attention(uint64_t hidden, uint64_t heads, uint64_t kv_heads, uint64_t head_dim,
                   bool qkv_bias, bool o_bias, ParamCount* count);
// A dense FFN of width `inner`: gate + up + down (gated) or up + down, with optional biases,
// counted as mlp_linear (matrices) and other (biases).
void add_dense_ffn(uint64_t hidden, uint64_t inner, bool gated, bool bias, ParamCount* count);
// A MoE layer: a router (hidden x experts, + `router_bias` per expert), `experts` gated experts
// of width `inner` of which `top_k` run per token; per-expert biases when `expert_bias`.
void add_moe(uint64_t hidden, uint64_t experts, uint64_t top_k, uint64_t inner, bool router_bias,
             bool expert_bias, ParamCount* count);

}  // namespace kvsim
