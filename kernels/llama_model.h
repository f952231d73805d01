// LlamaModel: the LLaMA forward pass of a llama2.c checkpoint, layer by layer, on fp32 rows
// of activations (one row per token). Immutable after construction; the KV cache and the
// attention over it belong to the caller (LlamaSession), so the same model serves the cached
// forward pass and the full recomputation used as its oracle.
//
//   x = embedding[token]                                            [n, dim]
//   per layer l:
//     h        = rmsnorm(x) * rms_att[l]                            eps 1e-5
//     q, k, v  = h Wq^T, h Wk^T, h Wv^T                             [n, dim], [n, kv_dim] x2
//     q, k     = RoPE(pos): each adjacent pair (2i, 2i+1) of a head rotated by
//                pos / 10000^(2i / head_dim)
//     a        = attention(q, cached k, v)                          (the caller's kernels)
//     x       += a Wo^T
//     h        = rmsnorm(x) * rms_ffn[l]
//     x       += (silu(h W1^T) * (h W3^T)) W2^T                     SwiGLU
//   logits = rmsnorm(x) * rms_final  classifier^T                   [n, vocab]
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/attention_shape.h"
#include "kernels/llama_checkpoint.h"
#include "kernels/prefill_flash.h"

namespace kvsim::kernels {

class LlamaModel {
 public:
  explicit LlamaModel(LlamaWeights weights);

  const LlamaConfig& config() const { return weights_.config; }
  AttentionShape attention_shape() const;

  // x <- the embeddings of `tokens` (ids < vocab_size), [n, dim].
  void embed(std::span<const int> tokens, RowMatrix* x) const;

  // The attention inputs of layer `layer` for rows x, row r at position positions[r]:
  // q [n, dim], k and v [n, kv_dim], RoPE applied to q and k. Rows may belong to different
  // sequences (a decode batch) or be consecutive positions of one (a prefill chunk).
  void attention_inputs(uint32_t layer, const RowMatrix& x, std::span<const uint32_t> positions,
                        RowMatrix* q, RowMatrix* k, RowMatrix* v) const;

  // x += attention Wo^T, then the SwiGLU FFN block; `attention` is [n, dim].
  void finish_layer(uint32_t layer, const RowMatrix& attention, RowMatrix* x) const;

  // logits [n, vocab] of the final hidden rows x.
  void logits(const RowMatrix& x, RowMatrix* out) const;

  // The oracle: every position recomputed from scratch with attention_reference (no cache),
  // logits [n, vocab] of tokens at positions 0..n-1.
  RowMatrix forward_reference(std::span<const int> tokens) const;

 private:
  void rope(std::span<const uint32_t> positions, uint32_t width, RowMatrix* x) const;

  LlamaWeights weights_;
  std::vector<float> rope_cos_;  // [seq_len, head_dim / 2]
  std::vector<float> rope_sin_;
};

}  // namespace kvsim::kernels
