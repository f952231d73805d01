// Quantized KV storage: int8 per token (symmetric) and int4 KIVI (keys per channel, values per
// token, asymmetric, group size G, the newest R tokens kept in full precision), the paged
// caches that hold them, and the operations that fill them. The decode kernels dequantize
// inside (decode_quantized.h). Scales and zero points are fp16, as the capacity planner
// counts them (core/engine/capacity.h).
//
// int8 (per token, symmetric): for each token and KV head, s = max|x| / 127,
//   code = round(x / s) in [-127, 127], x' = code * s.
//   codes  [num_blocks, block_size, kv_heads, head_dim]   int8
//   scales [num_blocks, block_size, kv_heads]             fp16
//
// int4 KIVI (asymmetric, x' = code * s + z, code in [0, 15], s = (max - min) / 15, z = min):
//   keys   per channel: one (s, z) per channel over a group of G consecutive tokens
//   values per token:   one (s, z) per G consecutive channels of a token's head vector
//   k_codes, v_codes [num_blocks, block_size, kv_heads, ceil(head_dim/2)] two codes per byte
//                    (element d in byte d/2, low nibble when d is even)
//   k_scale, k_zero  [num_blocks, block_size/G, kv_heads, head_dim]     fp16
//   v_scale, v_zero  [num_blocks, block_size, kv_heads, ceil(head_dim/G)] fp16
//   A sequence's first num_quantized positions (a multiple of G) are read from here, the rest
//   from an ND cache of full-precision values (KIVI's residual). kivi_num_quantized() says
//   how many: whole groups of G that are older than the newest R tokens. G divides block_size
//   so a key group never straddles two blocks.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "core/base/status.h"
#include "core/model/kv_layout.h"
#include "kernels/eigen_core.h"
#include "kernels/kv_cache_view.h"
#include "kernels/write_kv.h"

namespace kvsim::kernels {

// x[i * stride] for i < n -> codes[i] and the returned fp16 scale (symmetric int8).
Eigen::half quantize_int8(const float* x, uint32_t n, uint32_t stride, int8_t* codes);
inline float dequantize_int8(int8_t code, Eigen::half scale) {
  return static_cast<float>(code) * static_cast<float>(scale);
}

// x[i * stride] for i < n -> codes[i] in [0, 15] with an fp16 scale and zero (asymmetric).
struct Int4Params {
  Eigen::half scale;
  Eigen::half zero;
};
Int4Params quantize_int4(const float* x, uint32_t n, uint32_t stride, uint8_t* codes);
inline float dequantize_int4(uint8_t code, Int4Params params) {
  return std::fma(static_cast<float>(code), static_cast<float>(params.scale),
                  static_cast<float>(params.zero));
}

// The int8 paged ND cache of one layer (owning, zero-initialised).
struct Int8KvCache {
  Int8KvCache(const BlockLayout& layout, uint32_t num_blocks);
  BlockLayout layout;
  uint32_t num_blocks;
  std::vector<int8_t> k, v;                   // [num_blocks, block_size, kv_heads, head_dim]
  std::vector<Eigen::half> k_scale, v_scale;  // [num_blocks, block_size, kv_heads]
};

// Quantizes and stores the new tokens (same batch format as write_kv_nd).
void write_kv_int8(Int8KvCache* cache, std::span<const KvWrite> writes,
                   std::span<const float> k_new, std::span<const float> v_new);

// KIVI configuration: group size G and residual length R (tokens kept in full precision).
struct KiviConfig {
  uint32_t group = 32;      // G: tokens per key group, channels per value group
  uint32_t residual = 128;  // R: newest tokens never quantized
};

// Status for a KIVI configuration over blocks of `block_size` tokens (G >= 1, G divides it).
Status validate_kivi(const KiviConfig& config, uint32_t block_size);

// Positions [0, result) of a `num_tokens`-token sequence are quantized:
// G * floor((num_tokens - R) / G) when num_tokens > R, else 0.
uint32_t kivi_num_quantized(const KiviConfig& config, uint32_t num_tokens);

// The int4 KIVI paged ND cache of one layer (owning). Precondition: validate_kivi is ok.
struct Int4KiviCache {
  Int4KiviCache(const BlockLayout& layout, uint32_t num_blocks, const KiviConfig& config);
  BlockLayout layout;
  uint32_t num_blocks;
  KiviConfig config;
  uint32_t packed_dim;    // ceil(head_dim / 2) bytes per head vector
  uint32_t value_groups;  // ceil(head_dim / G)
  std::vector<uint8_t> k_codes, v_codes;
  std::vector<Eigen::half> k_scale, k_zero, v_scale, v_zero;

  uint8_t code(const std::vector<uint8_t>& codes, size_t block, uint32_t slot, uint32_t head,
               uint32_t dim) const;
  // Dequantized K (or V) row of (block, slot): kv_heads*head_dim floats into `row`.
  void dequantize_k_row(size_t block, uint32_t slot, float* row) const;
  void dequantize_v_row(size_t block, uint32_t slot, float* row) const;
};

// Quantizes positions [first, first + G) of a sequence (first % G == 0) from its
// full-precision ND residual into `cache`, through the same block table.
template <KvElement T>
void kivi_quantize_group(const PagedKv<const T>& residual, std::span<const uint32_t> block_table,
                         uint32_t first, Int4KiviCache* cache);

// The values an int8 cache returns for fp32 input [num_tokens, kv_heads, head_dim]
// (each head vector of head_dim elements quantized on its own).
std::vector<float> int8_round_trip(uint32_t head_dim, std::span<const float> x);

// Reference round trip used by the oracle: the values a KIVI cache returns for a sequence of
// `num_tokens` tokens given their fp32 K or V ([num_tokens, kv_heads, head_dim], already
// rounded to the residual's storage type). Keys: is_key = true.
std::vector<float> kivi_round_trip(const KiviConfig& config, uint32_t kv_heads, uint32_t head_dim,
                                   std::span<const float> x, bool is_key);

}  // namespace kvsim::kernels
