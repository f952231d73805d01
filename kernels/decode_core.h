// The math shared by every decode kernel: one query token (all heads) of one sequence against
// n cached positions, in two passes over the cache.
//
//   pass 1 (K):  S[h, i] = Q[h] . K[pos_i, h/g] / sqrt(D)           S: [num_heads, n]
//   softmax:     P[h, :] = softmax(S[h, :])   (max-subtracted, fp32)
//   pass 2 (V):  O[h]    = sum_i P[h, i] V[pos_i, h/g]              O: [num_heads, head_dim]
//
// Each pass walks the positions in order and reads each position's whole row of kv_heads x
// head_dim elements once (sequential in memory for contiguous and ND caches), computing every
// query head of every KV head from it. The storage is abstracted by a RowSource:
//
//   const E* k_row(uint32_t i, float* scratch) const   // K of the i-th attended position,
//   const E* v_row(uint32_t i, float* scratch) const   // kv_heads*head_dim elements, E float
//                                                      // or Eigen::half; a source that must
//                                                      // convert (NZ gather, int8, int4)
//                                                      // fills `scratch` and returns it
//
// All arithmetic goes through simd16.h with the same lane assignment, so two sources that
// return the same values give bit-identical outputs.
#pragma once

#include "kernels/eigen_core.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "core/check.h"
#include "kernels/attention_shape.h"
#include "kernels/kv_cache_view.h"
#include "kernels/simd16.h"

namespace kvsim::kernels {

using AlignedFloats = std::vector<float, Eigen::aligned_allocator<float>>;

// Scratch memory reused across decode calls (no allocation per call once warm).
struct DecodeWorkspace {
  AlignedFloats scores;  // [num_heads, round_up(n, 16)]
  AlignedFloats row;     // one converted K or V row, kv_heads*head_dim (+16 slack)
  AlignedFloats acc;     // per-kernel partial sums (NZ direct path)
};

inline uint32_t round_up16(uint32_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

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

inline void prepare_workspace(const AttentionShape& shape, uint32_t n, DecodeWorkspace* ws) {
  ws->scores.resize(size_t{shape.num_heads} * round_up16(n));
  ws->row.resize(size_t{shape.kv_width()} + kLanes);
}

// Pass 1 for one position: S[h, i] for every head from the row's K.
template <typename E>
inline void score_row(const AttentionShape& shape, const float* q, const E* k_row, uint32_t i,
                      uint32_t stride, float* scores) {
  const uint32_t d = shape.head_dim;
  const float scale = shape.scale();
  for (uint32_t h = 0; h < shape.num_heads; ++h) {
    const E* k = k_row + size_t{shape.kv_head(h)} * d;
    scores[size_t{h} * stride + i] = scale * dot16(q + size_t{h} * d, k, d);
  }
}

// Pass 2 for one position: O[h] += P[h, i] V[i] for every head.
template <typename E>
inline void accumulate_row(const AttentionShape& shape, const E* v_row, uint32_t i,
                           uint32_t stride, const float* probs, float* out) {
  const uint32_t d = shape.head_dim;
  for (uint32_t h = 0; h < shape.num_heads; ++h) {
    const E* v = v_row + size_t{shape.kv_head(h)} * d;
    axpy16(probs[size_t{h} * stride + i], v, out + size_t{h} * d, d);
  }
}

// One sequence: q [num_heads, head_dim] -> out [num_heads, head_dim] over `n` positions.
template <typename RowSource>
void decode_sequence(const AttentionShape& shape, const float* q, uint32_t n,
                     const RowSource& source, std::span<float> attention_sums,
                     DecodeWorkspace* ws, float* out) {
  KVSIM_CHECK(n >= 1, "decode: a sequence attends to at least one position");
  prepare_workspace(shape, n, ws);
  const uint32_t stride = round_up16(n);
  float* scratch = ws->row.data();
  for (uint32_t i = 0; i < n; ++i) {
    score_row(shape, q, source.k_row(i, scratch), i, stride, ws->scores.data());
  }
  finish_scores(shape, n, ws, attention_sums);
  std::fill(out, out + shape.q_width(), 0.0f);
  for (uint32_t i = 0; i < n; ++i) {
    accumulate_row(shape, source.v_row(i, scratch), i, stride, ws->scores.data(), out);
  }
}

// Checks the batch arguments every decode kernel shares.
inline void check_decode_batch(const AttentionShape& shape, size_t batch,
                               std::span<const float> q, std::span<float> out) {
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
  const uint64_t blocks_needed = (uint64_t{seq.context_len} + block_size - 1) / block_size;
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
