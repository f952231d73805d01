#include "kernels/decode_nz.h"

#include <algorithm>

namespace kvsim::kernels {
namespace {

constexpr uint32_t kMaxRun = 16;  // slots of one block processed together (bounds the acc)

// Slots [begin, end) of the attended positions that lie in one block.
struct Run {
  uint32_t begin = 0;
  uint32_t end = 0;
  const void* k_block = nullptr;
  const void* v_block = nullptr;
};

template <KvElement T>
class NzSequence {
 public:
  NzSequence(const PagedKv<const T>& cache, const DecodeSequence& seq)
      : cache_(cache), seq_(seq), layout_(cache.layout) {}

  uint32_t slot(uint32_t i) const { return seq_.position(i) % layout_.block_size; }
  // Offset of the block that holds attended position i.
  size_t block_base(uint32_t i) const {
    return size_t{seq_.block_table[seq_.position(i) / layout_.block_size]} *
           layout_.nz_elements();
  }

  // The run that starts at attended index i: same block, at most kMaxRun slots.
  Run run_at(uint32_t i) const {
    const uint32_t block_index = seq_.position(i) / layout_.block_size;
    uint32_t end = i + 1;
    const uint32_t n = seq_.num_attended();
    while (end < n && end - i < kMaxRun && seq_.position(end) / layout_.block_size == block_index) {
      ++end;
    }
    const size_t base = block_base(i);
    return {i, end, cache_.k.data() + base, cache_.v.data() + base};
  }

  // Gathers the kv_width elements of slot `slot` from an NZ block into `row` as fp32.
  void gather(const T* block, uint32_t slot_index, float* row) const {
    const uint64_t columns = layout_.columns();
    const uint64_t padded = layout_.nz_padded_block();
    for (uint64_t f = 0; f * kLanes < columns; ++f) {
      const uint64_t count = std::min<uint64_t>(kLanes, columns - f * kLanes);
      convert_to_float(block + (f * padded + slot_index) * kLanes, row + f * kLanes, count);
    }
  }

  const PagedKv<const T>& cache_;
  const DecodeSequence& seq_;
  const BlockLayout& layout_;
};

// RowSource for the gather path (head_dim % 16 != 0).
template <KvElement T>
class NzGatherSource {
 public:
  explicit NzGatherSource(const NzSequence<T>& nz) : nz_(nz) {}
  const float* k_row(uint32_t i, float* scratch) const { return row(i, true, scratch); }
  const float* v_row(uint32_t i, float* scratch) const { return row(i, false, scratch); }

 private:
  const float* row(uint32_t i, bool key, float* scratch) const {
    const T* pool = key ? nz_.cache_.k.data() : nz_.cache_.v.data();
    nz_.gather(pool + nz_.block_base(i), nz_.slot(i), scratch);
    return scratch;
  }
  const NzSequence<T>& nz_;
};

// Pass 1 over one run, fractal column by fractal column (head_dim % 16 == 0): the 16-lane
// partial dot product of (head h, slot r) lives in acc[(h * kMaxRun + r) * 16], so each
// (h, r) sees the same fused multiply-adds, in the same order, as dot16 over an ND row.
template <KvElement T>
void score_run(const AttentionShape& shape, const NzSequence<T>& nz, const Run& run,
               const float* q, uint32_t stride, DecodeWorkspace* ws) {
  const uint32_t d = shape.head_dim;
  const uint32_t group = shape.group_size();
  const uint64_t padded = nz.layout_.nz_padded_block();
  float* acc = ws->acc.data();
  std::fill(ws->acc.begin(), ws->acc.end(), 0.0f);
  const T* block = static_cast<const T*>(run.k_block);
  for (uint64_t f = 0; f < nz.layout_.nz_fractal_columns(); ++f) {
    const uint32_t kv_head = static_cast<uint32_t>(f * kLanes / d);
    const uint32_t dim = static_cast<uint32_t>(f * kLanes - uint64_t{kv_head} * d);
    const T* column = block + f * padded * kLanes;
    for (uint32_t r = 0; r < run.end - run.begin; ++r) {
      const Vec16 chunk = load16(column + size_t{nz.slot(run.begin + r)} * kLanes);
      for (uint32_t h = kv_head * group; h < (kv_head + 1) * group; ++h) {
        float* a = acc + (size_t{h} * kMaxRun + r) * kLanes;
        store16(a, fma16(load16(q + size_t{h} * d + dim), chunk, load16(a)));
      }
    }
  }
  const float scale = shape.scale();
  for (uint32_t h = 0; h < shape.num_heads; ++h) {
    for (uint32_t r = 0; r < run.end - run.begin; ++r) {
      const float* a = acc + (size_t{h} * kMaxRun + r) * kLanes;
      ws->scores[size_t{h} * stride + run.begin + r] = scale * reduce16(load16(a));
    }
  }
}

// Pass 2 over one run: O[h, dims of f] += P[h, slot] * fractal row, column by column.
template <KvElement T>
void accumulate_run(const AttentionShape& shape, const NzSequence<T>& nz, const Run& run,
                    uint32_t stride, const float* probs, float* out) {
  const uint32_t d = shape.head_dim;
  const uint32_t group = shape.group_size();
  const uint64_t padded = nz.layout_.nz_padded_block();
  const T* block = static_cast<const T*>(run.v_block);
  for (uint64_t f = 0; f < nz.layout_.nz_fractal_columns(); ++f) {
    const uint32_t kv_head = static_cast<uint32_t>(f * kLanes / d);
    const uint32_t dim = static_cast<uint32_t>(f * kLanes - uint64_t{kv_head} * d);
    const T* column = block + f * padded * kLanes;
    for (uint32_t r = 0; r < run.end - run.begin; ++r) {
      const Vec16 chunk = load16(column + size_t{nz.slot(run.begin + r)} * kLanes);
      for (uint32_t h = kv_head * group; h < (kv_head + 1) * group; ++h) {
        float* o = out + size_t{h} * d + dim;
        const Vec16 p = broadcast16(probs[size_t{h} * stride + run.begin + r]);
        store16(o, fma16(p, chunk, load16(o)));
      }
    }
  }
}

template <KvElement T>
void decode_nz_direct(const AttentionShape& shape, const NzSequence<T>& nz, const float* q,
                      DecodeWorkspace* ws, float* out) {
  const uint32_t n = nz.seq_.num_attended();
  prepare_workspace(shape, n, ws);
  ws->acc.resize(size_t{shape.num_heads} * kMaxRun * kLanes);
  const uint32_t stride = round_up16(n);
  for (uint32_t i = 0; i < n;) {
    const Run run = nz.run_at(i);
    score_run(shape, nz, run, q, stride, ws);
    i = run.end;
  }
  finish_scores(shape, n, ws, nz.seq_.attention_sums);
  std::fill(out, out + shape.q_width(), 0.0f);
  for (uint32_t i = 0; i < n;) {
    const Run run = nz.run_at(i);
    accumulate_run(shape, nz, run, stride, ws->scores.data(), out);
    i = run.end;
  }
}

}  // namespace

template <KvElement T>
void decode_attention_nz(const AttentionShape& shape, const PagedKv<const T>& cache,
                         std::span<const DecodeSequence> seqs, std::span<const float> q,
                         std::span<float> out, DecodeWorkspace* ws) {
  check_decode_batch(shape, seqs.size(), q, out);
  const BlockLayout& layout = cache.layout;
  KVSIM_CHECK(layout.nz_width == kLanes, "decode_nz: NZ fractal width must be 16");
  KVSIM_CHECK(layout.kv_heads == shape.kv_heads && layout.head_dim == shape.head_dim,
              "decode_nz: cache layout does not match the attention shape");
  KVSIM_CHECK(cache.k.size() == cache.v.size() && cache.k.size() % layout.nz_elements() == 0,
              "decode_nz: K and V must hold whole NZ blocks");
  const uint64_t num_blocks = cache.k.size() / layout.nz_elements();
  for (size_t b = 0; b < seqs.size(); ++b) {
    const DecodeSequence& seq = seqs[b];
    check_paged_sequence(seq, layout.block_size, num_blocks);
    const NzSequence<T> nz(cache, seq);
    const float* q_b = q.data() + b * shape.q_width();
    float* out_b = out.data() + b * shape.q_width();
    if (shape.head_dim % kLanes == 0) {
      decode_nz_direct(shape, nz, q_b, ws, out_b);
    } else {
      decode_sequence(shape, q_b, seq.num_attended(), NzGatherSource<T>(nz), seq.attention_sums,
                      ws, out_b);
    }
  }
}

template void decode_attention_nz<float>(const AttentionShape&, const PagedKv<const float>&,
                                         std::span<const DecodeSequence>, std::span<const float>,
                                         std::span<float>, DecodeWorkspace*);
template void decode_attention_nz<Eigen::half>(const AttentionShape&,
                                               const PagedKv<const Eigen::half>&,
                                               std::span<const DecodeSequence>,
                                               std::span<const float>, std::span<float>,
                                               DecodeWorkspace*);

}  // namespace kvsim::kernels
