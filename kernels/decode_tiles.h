// The inner loops of the decode kernels: a tile of kTileRows positions x up to 4 query heads of
// one KV head, accumulated in registers (decode_core.h drives them).
//
//   RowView: where one position's K (or V) row lives — element (kv head g, chunk c, lane l)
//   at base[g * head_stride + c * chunk_stride + l]:
//     ND / contiguous / converted rows   head_stride = head_dim, chunk_stride = 16
//     NZ (head_dim % 16 == 0)            head_stride = head_dim/16 * padded_block * 16,
//                                        chunk_stride = padded_block * 16 (one fractal
//                                        column further), base = block + slot * 16
//
//   score tile:       S[h, i+t] = scale * reduce16( sum_c fma(Q[h, c], K_t[g, c]) )
//   accumulate tile:  O[h, c] = fma(P[h, i+t], V_t[g, c], O[h, c])   for t = 0, 1, 2, 3 in order
//
// Every (head, position) dot product is the same chain of fused multiply-adds over chunks in
// order, reduced by reduce16; every output element receives its positions' contributions in
// position order. So the results do not depend on the layout a RowView describes, and tiles
// padded at the end of a sequence (repeated rows, zero weights) change nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/base/checked_math.h"
#include "kernels/simd16.h"

namespace kvsim::kernels {

inline constexpr uint32_t kTileRows = 4;  // positions per tile

template <typename E>
struct RowView {
  const E* base = nullptr;
  size_t head_stride = 0;
  size_t chunk_stride = 0;
  size_t row_stride = 0;  // elements from this row to the next slot's (wide tiles only)
};

// The tile's kv-head-g pointers and the stride between chunks (shared by the tile's rows).
template <typename E>
struct TileHeads {
  TileHeads(const RowView<E>* rows, uint32_t g) : chunk_stride(rows[0].chunk_stride) {
    for (uint32_t t = 0; t < kTileRows; ++t) p[t] = rows[t].base + g * rows[t].head_stride;
  }
  const E* p[kTileRows];
  size_t chunk_stride;
};

// Scores of heads [h0, h0 + NH) of KV head g for the tile's positions; rows t < count are
// written to scores[h * stride + i + t].
template <uint32_t NH, typename E>
inline void score_tile(const float* q, uint32_t head_dim, float scale, uint32_t g, uint32_t h0,
                       const RowView<E>* rows, uint32_t i, uint32_t count, uint32_t stride,
                       float* scores) {
  const TileHeads<E> heads(rows, g);
  const float* qh = q + size_t{h0} * head_dim;
  Vec16 acc[kTileRows][NH];
  for (auto& per_row : acc) {
    for (Vec16& a : per_row) a = zero16();
  }
  const uint32_t full = head_dim / kLanes;
  for (uint32_t c = 0; c < full; ++c) {
    Vec16 k[kTileRows];
    for (uint32_t t = 0; t < kTileRows; ++t) k[t] = load16(heads.p[t] + c * heads.chunk_stride);
    for (uint32_t j = 0; j < NH; ++j) {
      const Vec16 qv = load16(qh + size_t{j} * head_dim + c * kLanes);
      for (uint32_t t = 0; t < kTileRows; ++t) acc[t][j] = fma16(qv, k[t], acc[t][j]);
    }
  }
  if (const uint32_t lanes = head_dim - full * kLanes; lanes > 0) {
    Vec16 k[kTileRows];
    for (uint32_t t = 0; t < kTileRows; ++t) {
      k[t] = load16_partial(heads.p[t] + full * heads.chunk_stride, lanes);
    }
    for (uint32_t j = 0; j < NH; ++j) {
      const Vec16 qv = load16_partial(qh + size_t{j} * head_dim + full * kLanes, lanes);
      for (uint32_t t = 0; t < kTileRows; ++t) acc[t][j] = fma16(qv, k[t], acc[t][j]);
    }
  }
  if constexpr (NH * kTileRows == kLanes) {
    float sums[kLanes];
    reduce16x16(&acc[0][0], sums);  // acc[t][j] -> sums[t * NH + j]
    for (uint32_t t = 0; t < count; ++t) {
      for (uint32_t j = 0; j < NH; ++j) {
        scores[size_t{h0 + j} * stride + i + t] = scale * sums[t * NH + j];
      }
    }
  } else {
    for (uint32_t t = 0; t < count; ++t) {
      for (uint32_t j = 0; j < NH; ++j) {
        scores[size_t{h0 + j} * stride + i + t] = scale * reduce16(acc[t][j]);
      }
    }
  }
}

// O[h] += P[h, i+t] * V_t for heads [h0, h0 + NH) of KV head g; positions t >= count weigh 0.
template <uint32_t NH, typename E>
inline void accumulate_tile(const float* probs, uint32_t head_dim, uint32_t g, uint32_t h0,
                            const RowView<E>* rows, uint32_t i, uint32_t count, uint32_t stride,
                            float* out) {
  const TileHeads<E> heads(rows, g);
  Vec16 p[kTileRows][NH];
  for (uint32_t t = 0; t < kTileRows; ++t) {
    for (uint32_t j = 0; j < NH; ++j) {
      p[t][j] = broadcast16(t < count ? probs[size_t{h0 + j} * stride + i + t] : 0.0f);
    }
  }
  float* oh = out + size_t{h0} * head_dim;
  const uint32_t full = head_dim / kLanes;
  for (uint32_t c = 0; c < full; ++c) {
    Vec16 v[kTileRows];
    for (uint32_t t = 0; t < kTileRows; ++t) v[t] = load16(heads.p[t] + c * heads.chunk_stride);
    for (uint32_t j = 0; j < NH; ++j) {
      float* o = oh + size_t{j} * head_dim + c * kLanes;
      Vec16 acc = load16(o);
      for (uint32_t t = 0; t < kTileRows; ++t) acc = fma16(p[t][j], v[t], acc);
      store16(o, acc);
    }
  }
  if (const uint32_t lanes = head_dim - full * kLanes; lanes > 0) {
    Vec16 v[kTileRows];
    for (uint32_t t = 0; t < kTileRows; ++t) {
      v[t] = load16_partial(heads.p[t] + full * heads.chunk_stride, lanes);
    }
    for (uint32_t j = 0; j < NH; ++j) {
      float* o = oh + size_t{j} * head_dim + full * kLanes;
      Vec16 acc = load16_partial(o, lanes);
      for (uint32_t t = 0; t < kTileRows; ++t) acc = fma16(p[t][j], v[t], acc);
      store16_partial(o, acc, lanes);
    }
  }
}

// The memory of the next wide tile's KV head g: `runs` runs of `run_lines` 64-byte lines, `stride`
// bytes apart (ND: one run per row; NZ: one run per fractal column). A wide tile issues these
// prefetches a few at a time between its vector operations rather than in one burst before
// them: a burst occupies the line fill buffers and stalls the arithmetic behind it, so memory
// and arithmetic take turns instead of overlapping (measured on the decode benchmark: paged and
// NZ fp16 at 16k gained most, fp16 doing twice the arithmetic per byte). runs == 0: nothing.
struct WidePrefetch {
  const char* base = nullptr;
  size_t stride = 0;
  uint32_t runs = 0;
  uint32_t run_lines = 0;

  // Prefetches share `part` of `parts` (part < parts) of the lines, into L2.
  void issue(uint32_t part, uint32_t parts) const {
    const uint32_t total = runs * run_lines;
    const uint32_t begin = part * total / parts;
    const uint32_t end = (part + 1) * total / parts;
    if (begin == end) return;
    uint32_t run = begin / run_lines;
    uint32_t line = begin - run * run_lines;
    for (uint32_t l = begin; l < end; ++l) {
      prefetch_line<2>(base + run * stride + size_t{line} * 64);
      if (++line == run_lines) {
        line = 0;
        ++run;
      }
    }
  }
};

// 64-byte lines that `bytes` bytes from a line boundary cover.
inline constexpr uint32_t cache_lines(size_t bytes) {
  return static_cast<uint32_t>(ceil_div(bytes, 64u));
}

// Wide tiles: kWideRows consecutive slots of one block (row t at first.base + t * row_stride).
// In an NZ block they are contiguous in every fractal column (row_stride 16), so a wide tile
// reads each column's kWideRows x 16 elements as one run; in ND they are kWideRows rows of a
// block. One KV head g (all its query heads) per call; head_dim is a multiple of 16.
inline constexpr uint32_t kWideRows = 16;

// The wide tile's K of head g as fp32 [head_dim/16][kWideRows][16]: read in place when it is
// already so (fp32 NZ), else staged once (converted from fp16, or gathered from ND rows whose
// 4 KiB strides would alias in L1) rather than reread by every query head.
template <typename E>
inline const float* wide_tile_keys(const RowView<E>& first, uint32_t g, uint32_t head_dim,
                                   float* staging, size_t* chunk_stride) {
  const E* p = first.base + g * first.head_stride;
  if constexpr (std::is_same_v<E, float>) {
    if (first.row_stride == kLanes) {
      *chunk_stride = first.chunk_stride;
      return p;
    }
  }
  for (uint32_t c = 0; c < head_dim / kLanes; ++c) {
    for (uint32_t t = 0; t < kWideRows; ++t) {
      store16(staging + (c * kWideRows + t) * kLanes,
              load16(p + c * first.chunk_stride + t * first.row_stride));
    }
  }
  *chunk_stride = kWideRows * kLanes;
  return staging;
}

template <typename E>
inline void score_wide_tile(const float* q, uint32_t head_dim, float scale, uint32_t g,
                            uint32_t h_begin, uint32_t h_end, const RowView<E>& first, uint32_t i,
                            uint32_t stride, const WidePrefetch& next, float* staging,
                            float* scores) {
  size_t chunk_stride = 0;
  const float* keys = wide_tile_keys(first, g, head_dim, staging, &chunk_stride);
  const uint32_t chunks = head_dim / kLanes;
  const uint32_t steps = (h_end - h_begin) * chunks;
  for (uint32_t h = h_begin; h < h_end; ++h) {
    const float* qh = q + size_t{h} * head_dim;
    Vec16 acc[kWideRows];
    for (Vec16& a : acc) a = zero16();
    for (uint32_t c = 0; c < chunks; ++c) {
      next.issue((h - h_begin) * chunks + c, steps);
      const Vec16 qv = load16(qh + c * kLanes);
      const float* column = keys + c * chunk_stride;
      for (uint32_t t = 0; t < kWideRows; ++t)
        acc[t] = fma16(qv, load16(column + t * kLanes), acc[t]);
    }
    float sums[kWideRows];
    reduce16x16(acc, sums);
    float* row = scores + size_t{h} * stride + i;
    for (uint32_t t = 0; t < kWideRows; ++t) row[t] = scale * sums[t];
  }
}

// O[h] += sum_t P[h, i+t] V_t for the query heads [h_begin, h_end) of KV head g: each chunk of
// the tile's V is loaded once and serves every query head.
template <typename E>
inline void accumulate_wide_tile(const float* probs, uint32_t head_dim, uint32_t g,
                                 uint32_t h_begin, uint32_t h_end, const RowView<E>& first,
                                 uint32_t i, uint32_t stride, const WidePrefetch& next,
                                 float* out) {
  const E* p = first.base + g * first.head_stride;
  const uint32_t heads = h_end - h_begin;
  for (uint32_t c = 0; c < head_dim / kLanes; ++c) {
    const E* column = p + c * first.chunk_stride;
    Vec16 v[kWideRows];
    for (uint32_t t = 0; t < kWideRows; ++t) v[t] = load16(column + t * first.row_stride);
    for (uint32_t h = h_begin; h < h_end; ++h) {
      next.issue(c * heads + (h - h_begin), head_dim / kLanes * heads);
      const float* weights = probs + size_t{h} * stride + i;
      float* o = out + size_t{h} * head_dim + c * kLanes;
      Vec16 acc = load16(o);
      for (uint32_t t = 0; t < kWideRows; ++t) acc = fma16(broadcast16(weights[t]), v[t], acc);
      store16(o, acc);
    }
  }
}

}  // namespace kvsim::kernels
