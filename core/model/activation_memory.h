// The activation peak of an engine's profile run, modelled from the architecture.
//
// vLLM (V0 and V1), vllm-ascend and MindIE size the KV cache after one dummy forward pass of
// `num_tokens` tokens split over `num_seqs` sequences (vLLM: max_num_batched_tokens over
// min(max_num_seqs, tokens) requests, no KV cache yet) followed by the sampler on one row per
// sequence, and subtract the peak of the memory the run allocated beyond the weights. The peak
// is the largest of the phases:
//
//   forward  = num_tokens x max(MLP, attention) per token x b            (b = bytes of the
//     MLP       = 3 x hidden + 3 x intermediate / tp                       activation dtype)
//                 (residual, normed input, layer output; gate+up output 2I, activation output I)
//     attention = 3 x hidden + (2 x q_heads + 2 x kv_heads) x head_dim / tp
//                 (residual, normed input, layer output; fused QKV output, attention output)
//   sampler  = num_tokens x hidden x b          the forward's output, still referenced
//            + num_seqs x vocab x bytes_per_logit   the sampler's tensors over the full vocab
//   compile  = (vocab / tp + num_tokens) x hidden x b   only with a cold torch.compile inside
//              the profile (vLLM's model runner v2 logs, vLLM issues #54122 and #54383):
//              Inductor benchmarks its combo kernels on random copies of their inputs, the
//              largest being the embedding table, while the batch's hidden states are live.
//              An inferred size (docs/engine_memory.md); a warm compile cache has none.
//
// Attention is FlashAttention-style (no tokens x tokens score matrix). bytes_per_logit is the
// engine's (engine_memory_rules.h: 38 B measured for the sort-based sampler of vLLM V0 and
// V1's first model runner, whose live set is 28 B). The forward model
// gives 110,592 B/token for Llama-3.1-8B; vLLM 0.6.4's profile on an RTX 3090 grew by
// 0.92 GiB between 20,000 and 29,000 tokens (109,800 B/token; docs/engine_memory.md). For MoE
// models the width is the config's intermediate_size as imported, which is one expert's for
// Mixtral and gpt-oss, the dense layers' for DeepSeek-V3 and an unused dense width for
// Qwen3-MoE (12,288 for Qwen3-235B-A22B, whose experts are 1,536 wide). vLLM's fused-MoE
// workspaces are not modelled: Triton's fused_experts_impl holds top_k x max(2I/tp, hidden) +
// top_k x I/tp values per token, but the one MoE log whose forward sets the peak (the RTX PRO
// 6000 row, docs/engine_memory.md) prints 0.76 GiB for activation and graph estimate together,
// where that rule gives 0.73 GiB for the forward alone and the graphs took 0.32 GiB when
// captured. Which MoE kernel ran there (sm_120, DeepGEMM off) was not found.
#pragma once

#include <cstdint>

#include "core/model/dtype.h"
#include "core/model/model_spec.h"

namespace kvsim {

struct ProfileBatch {
  uint64_t num_tokens = 0;    // tokens of the dummy forward (max_num_batched_tokens)
  uint64_t num_seqs = 0;      // sequences, one sampled row each (min(max_num_seqs, tokens))
  bool cold_compile = false;  // a cold torch.compile runs inside the profile
};

struct ActivationPeak {
  uint64_t mlp_bytes_per_token = 0;        // live at the MLP's peak, per token
  uint64_t attention_bytes_per_token = 0;  // live at the attention block's peak, per token
  uint64_t forward_bytes = 0;              // num_tokens x the larger of the two
  uint64_t hidden_bytes = 0;               // num_tokens x hidden x b
  uint64_t logits_elements = 0;            // num_seqs x vocab
  uint32_t sampler_bytes_per_logit = 0;
  uint64_t sampler_bytes = 0;  // hidden_bytes + logits_elements x bytes_per_logit
  uint64_t compile_bytes = 0;  // the cold compile's peak (0 without one)
  uint64_t peak_bytes = 0;     // max(forward_bytes, sampler_bytes, compile_bytes)
};

// `activation_dtype`: the dtype activations are computed in (16-bit for quantized weights).
ActivationPeak activation_peak(const ModelSpec& model, uint32_t tp, DType activation_dtype,
                               const ProfileBatch& batch, uint32_t sampler_bytes_per_logit);

}  // namespace kvsim
