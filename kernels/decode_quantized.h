// Decode attention over quantized KV caches (kv_quant.h), dequantizing inside the kernel:
// each attended position's K (then V) row is dequantized into a kv_heads x head_dim fp32
// buffer and fed to the same arithmetic as decode_attention_paged.
//
//   Q  [batch, num_heads, head_dim]  fp32          O  [batch, num_heads, head_dim]  fp32
//   decode_attention_int8: K, V from an Int8KvCache (int8 codes + fp16 per-token scales)
//   decode_attention_kivi: positions < num_quantized[b] from an Int4KiviCache, the others
//                          from the full-precision ND cache `residual` (same block table)
//
// Sequences, block tables and attended positions are as for decode_attention_paged.
#pragma once

#include <span>

#include "kernels/attention_shape.h"
#include "kernels/decode_core.h"
#include "kernels/kv_cache_view.h"
#include "kernels/kv_quant.h"

namespace kvsim::kernels {

void decode_attention_int8(const AttentionShape& shape, const Int8KvCache& cache,
                           std::span<const DecodeSequence> seqs, std::span<const float> q,
                           std::span<float> out, DecodeWorkspace* ws);

template <KvElement T>
void decode_attention_kivi(const AttentionShape& shape, const Int4KiviCache& cache,
                           const PagedKv<const T>& residual, std::span<const DecodeSequence> seqs,
                           std::span<const uint32_t> num_quantized, std::span<const float> q,
                           std::span<float> out, DecodeWorkspace* ws);

}  // namespace kvsim::kernels
