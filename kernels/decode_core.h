// The math shared by every decode kernel: one query token (all heads) of one sequence against
// n cached positions, in two passes over the cache.
//
//   pass 1 (K):  S[h, i] = Q[h] . K[pos_i, h/g] / sqrt(D)           S: [num_heads, n]
//   softmax:     P[h, :] = softmax(S[h, :])   (max-subtracted, fp32)
//   pass 2 (V):  O[h]    = sum_i P[h, i] V[pos_i, h/g]              O: [num_heads, head_dim]
//
// Each pass walks the positions in order, kTileRows at a time, and reads each position's row
// of kv_heads x head_dim elements once, computing every query head from it in registers
// (decode_tiles.h). The storage is abstracted by a RowSource:
//
//   RowView<E> k_row(uint32_t i, float* scratch) const  // where the K row of the i-th attended
//   RowView<E> v_row(uint32_t i, float* scratch) const  // position lives (E float or
//                                                       // Eigen::half); a source that must
//                                                       // convert (NZ gather, int8, int4)
//                                                       // fills `scratch` (kv_width floats)
//                                                       // and points into it
//   void prefetch_k(uint32_t i) const                   // start loading row i (may do nothing)
//   void prefetch_v(uint32_t i) const
//
// Rows are prefetched kPrefetchDistance positions ahead (wide tiles: the next wide tile): a
// sequence's rows are scattered over blocks that the hardware prefetcher does not follow. The
// results depend only on the values read, not on the layout (see decode_tiles.h), so contiguous,
// paged ND and NZ agree bit for bit.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <span>
#include <vector>

#include "core/base/check.h"
#include "core/base/checked_math.h"
#include "kernels/attention_shape.h"
#include "kernels/decode_tiles.h"
#include "kernels/eigen_core.h"
#include "kernels/kv_cache_view.h"
#include "kernels/simd16.h"

namespace kvsim::kernels {

using AlignedFloats = std::vector<float, Eigen::aligned_allocator<float>>;

// Scratch memory reused across decode calls (no allocation per call once warm).
struct DecodeWorkspace {
  AlignedFloats scores;  // [num_heads, round_up(n, 16)]
  AlignedFloats rows;    // kTileRows converted rows (+16 slack each), or a staged wide tile
};

inline uint32_t round_up16(uint32_t n) { return ceil_div(n, kLanes) * kLanes; }

// In place: row[0..n) <- softmax(row[0..n)). `row` is a scores row (Eigen::AlignedMax), so the
// vectorised exp treats the same n elements the same way in every kernel.
void softmax_row(float* row, uint32_t n);

// Adds the column sums of P[h, i] over heads to sums[i] (H2O scores).
void add_attention_sums(const float* probs, uint32_t num_heads, uint32_t stride, uint32_t n,
                        std::span<float> sums);

// Softmax of every head's scores row, then the optional H2O sums.
inline void finish_scores(const AttentionShape& shape, uint32_t n, DecodeWorkspace* ws,
                          std::span<float> attention_sums) {
  const uint32_t stride = round_up16(n);
  for (uint32_t h = 0; h < shape.num_heads; ++h) softmax_row(ws->scores.data() + h * stride, n);
  if (!attention_sums.empty()) {
    KVSIM_CHECK(attention_sums.size() == n, "attention_sums: one per attended position");
    add_attention_sums(ws->scores.data(), shape.num_heads, stride, n, attention_sums);
  }
}

// A row view of kv_width contiguous elements (ND rows and converted rows).
template <typename E>
inline RowView<E> contiguous_row(const E* row, uint32_t head_dim) {
  return {row, head_dim, kLanes};
}

// Calls tile<NH>(h0) for the query heads of every KV head, at most 4 heads per call.
template <typename TileFn>
inline void for_each_head_block(const AttentionShape& shape, const TileFn& tile) {
  const uint32_t group = shape.group_size();
  for (uint32_t g = 0; g < shape.kv_heads; ++g) {
    uint32_t h = g * group;
    for (; h + 4 <= (g + 1) * group; h += 4) tile.template operator()<4>(g, h);
    switch ((g + 1) * group - h) {
      case 3:
        tile.template operator()<3>(g, h);
        break;
      case 2:
        tile.template operator()<2>(g, h);
        break;
      case 1:
        tile.template operator()<1>(g, h);
        break;
      default:
        break;
    }
  }
}

// Positions ahead of the tile being computed whose rows are prefetched (about 16-64 KiB of
// K or V with the benchmark's shape: enough to cover a memory access at full bandwidth).
inline constexpr uint32_t kPrefetchDistance = 4 * kTileRows;

// The RowViews of the tile starting at attended index i (past the end: the last row again).
template <typename RowSource, typename View>
inline void tile_rows(const RowSource& source, bool key, uint32_t i, uint32_t n,
                      uint32_t scratch_stride, float* scratch, View* rows) {
  for (uint32_t t = 0; t < kTileRows; ++t) {
    const uint32_t index = std::min(i + t, n - 1);
    float* own = scratch + size_t{t} * scratch_stride;
    rows[t] = key ? source.k_row(index, own) : source.v_row(index, own);
    if (i + t + kPrefetchDistance < n) {
      if (key)
        source.prefetch_k(i + t + kPrefetchDistance);
      else
        source.prefetch_v(i + t + kPrefetchDistance);
    }
  }
}

// True when attended positions i .. i+kWideRows-1 of `seq` are consecutive and, with a
// block_size, inside one block (a wide tile).
inline bool consecutive_run(const DecodeSequence& seq, uint32_t i, uint32_t block_size) {
  if (i + kWideRows > seq.num_attended()) return false;
  const uint32_t first = seq.position(i);
  if (seq.position(i + kWideRows - 1) != first + kWideRows - 1) return false;
  return block_size == 0 || first % block_size + kWideRows <= block_size;
}

// Sources that can serve wide tiles (ND, NZ): wide_rows(i) is kWideRows when attended positions
// i .. i+kWideRows-1 are consecutive slots of one block, else 0; wide_prefetch_k/v(i, g) say
// where KV head g's part of such a tile lives (runs == 0 when i does not start one). Each wide
// tile of head g prefetches head g of the next wide tile, spread over its own arithmetic (see
// WidePrefetch).
template <typename RowSource>
concept WideTileSource = requires(const RowSource& source, uint32_t i) {
  source.wide_rows(i);
  { source.wide_prefetch_k(i, i) } -> std::same_as<WidePrefetch>;
  { source.wide_prefetch_v(i, i) } -> std::same_as<WidePrefetch>;
};

template <typename RowSource>
inline bool is_wide_tile(const RowSource& source, uint32_t i) {
  if constexpr (WideTileSource<RowSource>) {
    return source.wide_rows(i) == kWideRows;
  } else {
    return false;
  }
}

// Head g of the wide tile at i, to prefetch (K or V); nothing for other sources.
template <typename RowSource>
inline WidePrefetch wide_tile_prefetch(const RowSource& source, bool key, uint32_t i, uint32_t g) {
  if constexpr (WideTileSource<RowSource>) {
    return key ? source.wide_prefetch_k(i, g) : source.wide_prefetch_v(i, g);
  } else {
    return {};
  }
}

// Pass 1 over every position: scores, kTileRows (or kWideRows) positions at a time.
template <typename RowSource, typename View>
void score_pass(const AttentionShape& shape, const float* q, uint32_t n, const RowSource& source,
                DecodeWorkspace* ws, View* rows) {
  const uint32_t stride = round_up16(n);
  const uint32_t scratch_stride = shape.kv_width() + kLanes;
  for (uint32_t i = 0; i < n;) {
    if (is_wide_tile(source, i)) {
      const View first = source.k_row(i, nullptr);
      for (uint32_t g = 0; g < shape.kv_heads; ++g) {
        score_wide_tile(q, shape.head_dim, shape.scale(), g, g * shape.group_size(),
                        (g + 1) * shape.group_size(), first, i, stride,
                        wide_tile_prefetch(source, true, i + kWideRows, g), ws->rows.data(),
                        ws->scores.data());
      }
      i += kWideRows;
      continue;
    }
    tile_rows(source, true, i, n, scratch_stride, ws->rows.data(), rows);
    const uint32_t count = std::min(kTileRows, n - i);
    for_each_head_block(shape, [&]<uint32_t NH>(uint32_t g, uint32_t h0) {
      score_tile<NH>(q, shape.head_dim, shape.scale(), g, h0, rows, i, count, stride,
                     ws->scores.data());
    });
    i += kTileRows;
  }
}

// Pass 2 over every position: O += P V, in position order.
template <typename RowSource, typename View>
void accumulate_pass(const AttentionShape& shape, uint32_t n, const RowSource& source,
                     DecodeWorkspace* ws, View* rows, float* out) {
  const uint32_t stride = round_up16(n);
  const uint32_t scratch_stride = shape.kv_width() + kLanes;
  std::fill(out, out + shape.q_width(), 0.0f);
  for (uint32_t i = 0; i < n;) {
    if (is_wide_tile(source, i)) {
      const View first = source.v_row(i, nullptr);
      for (uint32_t g = 0; g < shape.kv_heads; ++g) {
        accumulate_wide_tile(ws->scores.data(), shape.head_dim, g, g * shape.group_size(),
                             (g + 1) * shape.group_size(), first, i, stride,
                             wide_tile_prefetch(source, false, i + kWideRows, g), out);
      }
      i += kWideRows;
      continue;
    }
    tile_rows(source, false, i, n, scratch_stride, ws->rows.data(), rows);
    const uint32_t count = std::min(kTileRows, n - i);
    for_each_head_block(shape, [&]<uint32_t NH>(uint32_t g, uint32_t h0) {
      accumulate_tile<NH>(ws->scores.data(), shape.head_dim, g, h0, rows, i, count, stride, out);
    });
    i += kTileRows;
  }
}

// One sequence: q [num_heads, head_dim] -> out [num_heads, head_dim] over `n` positions.
template <typename RowSource>
void decode_sequence(const AttentionShape& shape, const float* q, uint32_t n,
                     const RowSource& source, std::span<float> attention_sums, DecodeWorkspace* ws,
                     float* out) {
  KVSIM_CHECK(n >= 1, "decode: a sequence attends to at least one position");
  using View = decltype(source.k_row(0, nullptr));
  ws->scores.resize(size_t{shape.num_heads} * round_up16(n));
  // Converted rows of a tile, or one KV head of a wide tile staged as fp32.
  ws->rows.resize(std::max(size_t{kTileRows} * (shape.kv_width() + kLanes),
                           size_t{kWideRows} * shape.head_dim));
  View rows[kTileRows];
  score_pass(shape, q, n, source, ws, rows);
  finish_scores(shape, n, ws, attention_sums);
  accumulate_pass(shape, n, source, ws, rows, out);
}

// For sources that convert into scratch: prefetching is left to the hardware.
struct NoPrefetch {
  void prefetch_k(uint32_t) const {}
  void prefetch_v(uint32_t) const {}
};

// Checks the batch arguments every decode kernel shares.
inline void check_decode_batch(const AttentionShape& shape, size_t batch, std::span<const float> q,
                               std::span<float> out) {
  KVSIM_CHECK(shape.validate().is_ok(), "decode: invalid attention shape");
  KVSIM_CHECK(q.size() == batch * shape.q_width() && out.size() == q.size(),
              "decode: Q and O must be [batch, num_heads, head_dim]");
}

inline void check_sequence(const DecodeSequence& seq) {
  KVSIM_CHECK(seq.context_len >= 1, "decode: context_len must be >= 1");
  KVSIM_CHECK(seq.positions.empty() || seq.positions.back() < seq.context_len,
              "decode: attended positions must be < context_len");
}

// Checks a paged sequence: every block it reads (those of its attended positions) is a block
// id < num_blocks. Blocks of positions not attended may be absent (a block table entry that a
// retention policy dropped holds an invalid id and is never read).
inline void check_paged_sequence(const DecodeSequence& seq, uint32_t block_size,
                                 uint64_t num_blocks) {
  check_sequence(seq);
  const uint64_t blocks_needed = ceil_div(uint64_t{seq.context_len}, block_size);
  KVSIM_CHECK(seq.block_table.size() >= blocks_needed, "paged decode: block table too short");
  if (seq.positions.empty()) {
    for (uint64_t b = 0; b < blocks_needed; ++b) {
      KVSIM_CHECK(seq.block_table[b] < num_blocks, "paged decode: block id out of range");
    }
    return;
  }
  for (uint32_t pos : seq.positions) {
    KVSIM_CHECK(seq.block_table[pos / block_size] < num_blocks,
                "paged decode: block id out of range");
  }
}

}  // namespace kvsim::kernels
