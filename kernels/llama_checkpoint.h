// Loading llama2.c checkpoints (the legacy "version 0" format that llama2.c's export writes
// and run.c reads) into fp32 weights.
//
// File layout (little-endian):
//   header  7 x int32: dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len
//           (vocab_size < 0: the classifier is not shared with the embedding; |vocab_size|
//           tokens)
//   fp32 tensors, row-major [out, in] (y = W x), in this order:
//     token_embedding [vocab, dim]
//     rms_att         [layers, dim]
//     wq              [layers, dim, dim]         (n_heads * head_dim = dim)
//     wk, wv          [layers, kv_dim, dim]      kv_dim = n_kv_heads * head_dim
//     wo              [layers, dim, dim]
//     rms_ffn         [layers, dim]
//     w1              [layers, hidden, dim]
//     w2              [layers, dim, hidden]
//     w3              [layers, hidden, dim]
//     rms_final       [dim]
//     freq_cis_real, freq_cis_imag  [seq_len, head_dim / 2] each (RoPE tables; skipped and
//                                   recomputed)
//     wcls            [vocab, dim]               only when unshared
// A file that is shorter or longer than its header implies, has a header value out of range,
// or holds a non-finite weight is rejected with a Status naming the file and the problem.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace kvsim::kernels {

struct LlamaConfig {
  uint32_t dim = 0;         // model width
  uint32_t hidden_dim = 0;  // FFN width
  uint32_t n_layers = 0;
  uint32_t n_heads = 0;     // query heads
  uint32_t n_kv_heads = 0;  // KV heads (divides n_heads)
  uint32_t vocab_size = 0;
  uint32_t seq_len = 0;  // maximum positions
  bool shared_classifier = true;

  uint32_t head_dim() const { return dim / n_heads; }
  uint32_t kv_dim() const { return n_kv_heads * head_dim(); }
  // The weights the checkpoint holds (the layout above, RoPE tables excluded): the embedding,
  // per layer two norms, wq, wk, wv, wo and w1, w2, w3, the final norm, and the classifier
  // when it is not shared.
  uint64_t num_params() const {
    const uint64_t d = dim, kv = kv_dim(), h = hidden_dim, v = vocab_size;
    const uint64_t per_layer = 2 * d + 2 * d * d + 2 * kv * d + 3 * h * d;
    return v * d + n_layers * per_layer + d + (shared_classifier ? 0 : v * d);
  }
};

struct LlamaWeights {
  LlamaConfig config;
  std::vector<float> token_embedding;  // [vocab, dim]
  std::vector<float> rms_att;          // [layers, dim]
  std::vector<float> wq;               // [layers, dim, dim]
  std::vector<float> wk;               // [layers, kv_dim, dim]
  std::vector<float> wv;               // [layers, kv_dim, dim]
  std::vector<float> wo;               // [layers, dim, dim]
  std::vector<float> rms_ffn;          // [layers, dim]
  std::vector<float> w1;               // [layers, hidden, dim]
  std::vector<float> w2;               // [layers, dim, hidden]
  std::vector<float> w3;               // [layers, hidden, dim]
  std::vector<float> rms_final;        // [dim]
  std::vector<float> wcls;             // [vocab, dim]; empty when shared with the embedding

  // The classifier: wcls, or the token embedding when shared.
  const std::vector<float>& classifier() const {
    return config.shared_classifier ? token_embedding : wcls;
  }
};

// Reads and validates a checkpoint file.
StatusOr<LlamaWeights> load_llama_checkpoint(const std::string& path);

// Parses checkpoint bytes; `name` prefixes error messages.
StatusOr<LlamaWeights> parse_llama_checkpoint(std::span<const uint8_t> bytes,
                                              const std::string& name);

// The bytes of a checkpoint in the same format (RoPE tables written as llama2.c does), for
// tests and tools that make small models.
std::vector<uint8_t> serialize_llama_checkpoint(const LlamaWeights& weights);

// Reads a whole file; a missing or unreadable file is a Status.
StatusOr<std::vector<uint8_t>> read_file_bytes(const std::string& path);

}  // namespace kvsim::kernels
