// ModelSpec: the shape of a transformer as far as the KV cache and the cost model care.
//
// Loaded once from YAML (core/preset_loader.h), validated there, immutable afterwards.
// Invariants after loading: every count is > 0; heads % kv_heads == 0; the attention kind
// agrees with the head counts (mha: kv == heads, mqa: kv == 1, gqa: 1 < kv < heads,
// mla: kv_lora_rank > 0); num_active_params <= num_params.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace kvsim {

enum class AttentionKind : uint8_t {
  kMha,  // multi-head: one KV head per query head
  kGqa,  // grouped-query: each KV head serves heads / kv_heads query heads
  kMqa,  // multi-query: one KV head for all query heads
  kMla,  // multi-head latent (DeepSeek): one compressed latent per token per layer
};

std::string_view attention_kind_name(AttentionKind kind);
StatusOr<AttentionKind> parse_attention_kind(std::string_view name);

struct ModelSpec {
  std::string name;    // preset name, e.g. "llama3-8b"
  std::string source;  // where the figures come from (config.json URL, paper)

  uint32_t num_layers = 0;               // transformer blocks
  uint32_t hidden_size = 0;              // model width (d_model)
  uint32_t num_attention_heads = 0;      // query heads
  uint32_t num_kv_heads = 0;             // KV heads (== heads for MHA, 1 for MQA)
  uint32_t head_dim = 0;                 // elements per head
  uint32_t intermediate_size = 0;        // FFN inner width (per expert for MoE models)
  uint32_t vocab_size = 0;               // tokens in the vocabulary
  uint32_t max_position_embeddings = 0;  // longest sequence the model accepts, tokens

  uint64_t num_params = 0;         // all parameters (weights held in memory)
  uint64_t num_active_params = 0;  // parameters used per token (== num_params unless MoE)
  // The output projection (lm_head) shares the input embedding's weights (config.json's
  // tie_word_embeddings); decides how many vocab x hidden matrices a quantized checkpoint
  // keeps in 16-bit (core/weight_memory.h). Default false, as in transformers.
  bool tie_word_embeddings = false;

  AttentionKind attention = AttentionKind::kMha;
  uint32_t sliding_window_tokens = 0;  // 0 = none; else the KV cache keeps the last W tokens

  // MLA only (attention == kMla): the cached latent per token per layer is
  // kv_lora_rank + qk_rope_head_dim elements.
  uint32_t kv_lora_rank = 0;
  uint32_t qk_rope_head_dim = 0;
};

// Checks the invariants listed above; the message names the offending field.
Status validate_model(const ModelSpec& model);

}  // namespace kvsim
