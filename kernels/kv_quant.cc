#include "kernels/kv_quant.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/check.h"
#include "core/base/checked_math.h"

namespace kvsim::kernels {
namespace {

constexpr float kInt8Max = 127.0f;
constexpr float kInt4Max = 15.0f;
constexpr float kHalfMax = 65504.0f;

Eigen::half to_half_saturated(float x) { return Eigen::half(std::clamp(x, -kHalfMax, kHalfMax)); }

void set_nibble(uint8_t* bytes, uint32_t index, uint8_t code) {
  uint8_t& byte = bytes[index / 2];
  byte = index % 2 == 0 ? static_cast<uint8_t>((byte & 0xF0) | code)
                        : static_cast<uint8_t>((byte & 0x0F) | (code << 4));
}

uint8_t get_nibble(const uint8_t* bytes, uint32_t index) {
  const uint8_t byte = bytes[index / 2];
  return index % 2 == 0 ? (byte & 0x0F) : static_cast<uint8_t>(byte >> 4);
}

}  // namespace

Eigen::half quantize_int8(const float* x, uint32_t n, uint32_t stride, int8_t* codes) {
  float max_abs = 0.0f;
  for (uint32_t i = 0; i < n; ++i) max_abs = std::max(max_abs, std::fabs(x[size_t{i} * stride]));
  const Eigen::half scale = to_half_saturated(max_abs / kInt8Max);
  const float s = static_cast<float>(scale);
  for (uint32_t i = 0; i < n; ++i) {
    const float q = s > 0.0f ? std::nearbyint(x[size_t{i} * stride] / s) : 0.0f;
    codes[i] = static_cast<int8_t>(std::clamp(q, -kInt8Max, kInt8Max));
  }
  return scale;
}

Int4Params quantize_int4(const float* x, uint32_t n, uint32_t stride, uint8_t* codes) {
  float lo = std::numeric_limits<float>::infinity();
  float hi = -lo;
  for (uint32_t i = 0; i < n; ++i) {
    lo = std::min(lo, x[size_t{i} * stride]);
    hi = std::max(hi, x[size_t{i} * stride]);
  }
  const Int4Params params{to_half_saturated((hi - lo) / kInt4Max), to_half_saturated(lo)};
  const float s = static_cast<float>(params.scale);
  const float z = static_cast<float>(params.zero);
  for (uint32_t i = 0; i < n; ++i) {
    const float q = s > 0.0f ? std::nearbyint((x[size_t{i} * stride] - z) / s) : 0.0f;
    codes[i] = static_cast<uint8_t>(std::clamp(q, 0.0f, kInt4Max));
  }
  return params;
}

Int8KvCache::Int8KvCache(const BlockLayout& block_layout, uint32_t blocks)
    : layout(block_layout),
      num_blocks(blocks),
      k(size_t{blocks} * block_layout.nd_elements()),
      v(k.size()),
      k_scale(size_t{blocks} * block_layout.block_size * block_layout.kv_heads),
      v_scale(k_scale.size()) {}

void write_kv_int8(Int8KvCache* cache, std::span<const KvWrite> writes,
                   std::span<const float> k_new, std::span<const float> v_new) {
  const BlockLayout& layout = cache->layout;
  const uint32_t d = layout.head_dim;
  size_t row = 0;
  for (const KvWrite& w : writes) {
    for (uint32_t i = 0; i < w.seqlen; ++i, ++row) {
      const uint32_t pos = w.token_offset + i;
      KVSIM_CHECK(pos / layout.block_size < w.block_table.size(), "write_kv_int8: block table");
      const size_t block = w.block_table[pos / layout.block_size];
      KVSIM_CHECK(block < cache->num_blocks, "write_kv_int8: block id out of range");
      const size_t slot_index = block * layout.block_size + pos % layout.block_size;
      KVSIM_CHECK((row + 1) * layout.columns() <= k_new.size() && k_new.size() == v_new.size(),
                  "write_kv_int8: K_new/V_new too short");
      for (uint32_t h = 0; h < layout.kv_heads; ++h) {
        const size_t src = row * layout.columns() + size_t{h} * d;
        const size_t dst = (slot_index * layout.kv_heads + h) * d;
        cache->k_scale[slot_index * layout.kv_heads + h] =
            quantize_int8(k_new.data() + src, d, 1, cache->k.data() + dst);
        cache->v_scale[slot_index * layout.kv_heads + h] =
            quantize_int8(v_new.data() + src, d, 1, cache->v.data() + dst);
      }
    }
  }
}

std::vector<float> int8_round_trip(uint32_t head_dim, std::span<const float> x) {
  std::vector<float> out(x.size());
  std::vector<int8_t> codes(head_dim);
  for (size_t base = 0; base < x.size(); base += head_dim) {
    const Eigen::half scale = quantize_int8(x.data() + base, head_dim, 1, codes.data());
    for (uint32_t d = 0; d < head_dim; ++d) out[base + d] = dequantize_int8(codes[d], scale);
  }
  return out;
}

Status validate_kivi(const KiviConfig& config, uint32_t block_size) {
  if (config.group == 0 || config.residual == 0) {
    return Status::invalid_argument("int4:G,R: G and R must be positive");
  }
  if (block_size % config.group != 0) {
    return Status::invalid_argument(
        fmt::format("int4:G,R: the group size G ({}) must divide the block size ({})", config.group,
                    block_size));
  }
  return Status::ok();
}

uint32_t kivi_num_quantized(const KiviConfig& config, uint32_t num_tokens) {
  if (num_tokens <= config.residual) return 0;
  return (num_tokens - config.residual) / config.group * config.group;
}

Int4KiviCache::Int4KiviCache(const BlockLayout& block_layout, uint32_t blocks,
                             const KiviConfig& kivi)
    : layout(block_layout),
      num_blocks(blocks),
      config(kivi),
      packed_dim(ceil_div(block_layout.head_dim, 2u)),
      value_groups(ceil_div(block_layout.head_dim, kivi.group)) {
  KVSIM_CHECK(validate_kivi(kivi, block_layout.block_size).is_ok(), "Int4KiviCache: bad config");
  const size_t slots = size_t{blocks} * block_layout.block_size;
  k_codes.assign(slots * block_layout.kv_heads * packed_dim, 0);
  v_codes.assign(k_codes.size(), 0);
  const size_t key_params =
      size_t{blocks} * (block_layout.block_size / kivi.group) * block_layout.columns();
  k_scale.resize(key_params);
  k_zero.resize(key_params);
  v_scale.resize(slots * block_layout.kv_heads * value_groups);
  v_zero.resize(v_scale.size());
}

uint8_t Int4KiviCache::code(const std::vector<uint8_t>& codes, size_t block, uint32_t slot,
                            uint32_t head, uint32_t dim) const {
  const size_t vector = (block * layout.block_size + slot) * layout.kv_heads + head;
  return get_nibble(codes.data() + vector * packed_dim, dim);
}

void Int4KiviCache::dequantize_k_row(size_t block, uint32_t slot, float* row) const {
  const uint32_t d = layout.head_dim;
  const size_t group_index = block * (layout.block_size / config.group) + slot / config.group;
  for (uint32_t h = 0; h < layout.kv_heads; ++h) {
    const uint8_t* codes =
        k_codes.data() + ((block * layout.block_size + slot) * layout.kv_heads + h) * packed_dim;
    const size_t params = (group_index * layout.kv_heads + h) * d;
    for (uint32_t e = 0; e < d; ++e) {
      row[size_t{h} * d + e] =
          dequantize_int4(get_nibble(codes, e), {k_scale[params + e], k_zero[params + e]});
    }
  }
}

void Int4KiviCache::dequantize_v_row(size_t block, uint32_t slot, float* row) const {
  const uint32_t d = layout.head_dim;
  for (uint32_t h = 0; h < layout.kv_heads; ++h) {
    const size_t vector = (block * layout.block_size + slot) * layout.kv_heads + h;
    const uint8_t* codes = v_codes.data() + vector * packed_dim;
    for (uint32_t e = 0; e < d; ++e) {
      const size_t params = vector * value_groups + e / config.group;
      row[size_t{h} * d + e] =
          dequantize_int4(get_nibble(codes, e), {v_scale[params], v_zero[params]});
    }
  }
}

template <KvElement T>
void kivi_quantize_group(const PagedKv<const T>& residual, std::span<const uint32_t> block_table,
                         uint32_t first, Int4KiviCache* cache) {
  const BlockLayout& layout = cache->layout;
  const uint32_t g = cache->config.group;
  const uint32_t d = layout.head_dim;
  const uint64_t width = layout.columns();
  KVSIM_CHECK(first % g == 0, "kivi_quantize_group: first position must start a group");
  KVSIM_CHECK(first / layout.block_size < block_table.size(), "kivi_quantize_group: table");
  const size_t block = block_table[first / layout.block_size];
  KVSIM_CHECK(block < cache->num_blocks, "kivi_quantize_group: block id out of range");
  const uint32_t slot0 = first % layout.block_size;
  // The group's full-precision K and V as fp32: [G, kv_heads, head_dim].
  std::vector<float> k(size_t{g} * width), v(k.size());
  const size_t src = (block * layout.block_size + slot0) * width;
  convert_to_float(residual.k.data() + src, k.data(), k.size());
  convert_to_float(residual.v.data() + src, v.data(), v.size());
  std::vector<uint8_t> codes(std::max(g, d));
  const size_t group_index = block * (layout.block_size / g) + slot0 / g;
  for (uint32_t h = 0; h < layout.kv_heads; ++h) {
    for (uint32_t e = 0; e < d; ++e) {  // keys: per channel over the G tokens
      const size_t column = size_t{h} * d + e;
      const Int4Params p =
          quantize_int4(k.data() + column, g, static_cast<uint32_t>(width), codes.data());
      const size_t params = (group_index * layout.kv_heads + h) * d + e;
      cache->k_scale[params] = p.scale;
      cache->k_zero[params] = p.zero;
      for (uint32_t t = 0; t < g; ++t) {
        const size_t vector = (block * layout.block_size + slot0 + t) * layout.kv_heads + h;
        set_nibble(cache->k_codes.data() + vector * cache->packed_dim, e, codes[t]);
      }
    }
  }
  for (uint32_t t = 0; t < g; ++t) {  // values: per token, G channels at a time
    for (uint32_t h = 0; h < layout.kv_heads; ++h) {
      const size_t vector = (block * layout.block_size + slot0 + t) * layout.kv_heads + h;
      for (uint32_t vg = 0; vg < cache->value_groups; ++vg) {
        const uint32_t count = std::min(g, d - vg * g);
        const float* x = v.data() + t * width + size_t{h} * d + size_t{vg} * g;
        const Int4Params p = quantize_int4(x, count, 1, codes.data());
        cache->v_scale[vector * cache->value_groups + vg] = p.scale;
        cache->v_zero[vector * cache->value_groups + vg] = p.zero;
        for (uint32_t e = 0; e < count; ++e) {
          set_nibble(cache->v_codes.data() + vector * cache->packed_dim, vg * g + e, codes[e]);
        }
      }
    }
  }
}

template void kivi_quantize_group<float>(const PagedKv<const float>&, std::span<const uint32_t>,
                                         uint32_t, Int4KiviCache*);
template void kivi_quantize_group<Eigen::half>(const PagedKv<const Eigen::half>&,
                                               std::span<const uint32_t>, uint32_t, Int4KiviCache*);

std::vector<float> kivi_round_trip(const KiviConfig& config, uint32_t kv_heads, uint32_t head_dim,
                                   std::span<const float> x, bool is_key) {
  const uint32_t g = config.group;
  const size_t width = size_t{kv_heads} * head_dim;
  const uint32_t num_tokens = static_cast<uint32_t>(x.size() / width);
  const uint32_t quantized = kivi_num_quantized(config, num_tokens);
  std::vector<float> out(x.begin(), x.end());
  std::vector<uint8_t> codes(std::max(g, head_dim));
  for (uint32_t t0 = 0; t0 < quantized; t0 += is_key ? g : 1) {
    for (size_t column = 0; column < width; ++column) {
      if (is_key) {  // channel `column` over tokens t0 .. t0+G-1
        const Int4Params p = quantize_int4(x.data() + t0 * width + column, g,
                                           static_cast<uint32_t>(width), codes.data());
        for (uint32_t t = 0; t < g; ++t)
          out[(t0 + t) * width + column] = dequantize_int4(codes[t], p);
      } else if (column % head_dim % g == 0) {  // token t0, channels column .. column+G-1
        const uint32_t count = std::min<uint32_t>(g, head_dim - column % head_dim);
        const Int4Params p = quantize_int4(x.data() + t0 * width + column, count, 1, codes.data());
        for (uint32_t e = 0; e < count; ++e)
          out[t0 * width + column + e] = dequantize_int4(codes[e], p);
      }
    }
  }
  return out;
}

}  // namespace kvsim::kernels
