#include "kernels/decode_nz.h"

#include <algorithm>

namespace kvsim::kernels {
namespace {

// Where the attended positions of one sequence live in an NZ pool.
template <KvElement T>
class NzSequence {
 public:
  NzSequence(const PagedKv<const T>& cache, const DecodeSequence& seq)
      : cache_(cache), seq_(seq), layout_(cache.layout), padded_(layout_.nz_padded_block()) {}

  uint32_t slot(uint32_t i) const { return seq_.position(i) % layout_.block_size; }
  // Offset of the block that holds attended position i.
  size_t block_base(uint32_t i) const {
    return size_t{seq_.block_table[seq_.position(i) / layout_.block_size]} * layout_.nz_elements();
  }
  // Offset of position i's fractal row in fractal column 0.
  size_t row_base(uint32_t i) const { return block_base(i) + size_t{slot(i)} * kLanes; }

  const PagedKv<const T>& cache_;
  const DecodeSequence& seq_;
  const BlockLayout& layout_;
  uint64_t padded_;
};

// head_dim % 16 == 0: every fractal column belongs to one head, so a position's row is read in
// place — chunk c of head g is fractal column g * head_dim/16 + c, one fractal column
// (padded_block * 16 elements) after the other.
template <KvElement T>
class NzDirectSource {
 public:
  explicit NzDirectSource(const NzSequence<T>& nz) : nz_(nz) {}
  RowView<T> k_row(uint32_t i, float*) const { return view(nz_.cache_.k.data(), i); }
  RowView<T> v_row(uint32_t i, float*) const { return view(nz_.cache_.v.data(), i); }
  void prefetch_k(uint32_t i) const { prefetch(nz_.cache_.k.data(), i, 1); }
  void prefetch_v(uint32_t i) const { prefetch(nz_.cache_.v.data(), i, 1); }
  WidePrefetch wide_prefetch_k(uint32_t i, uint32_t g) const {
    return wide_prefetch(nz_.cache_.k.data(), i, g);
  }
  WidePrefetch wide_prefetch_v(uint32_t i, uint32_t g) const {
    return wide_prefetch(nz_.cache_.v.data(), i, g);
  }

  // kWideRows when attended positions i .. i+15 are consecutive slots of one block.
  uint32_t wide_rows(uint32_t i) const {
    return consecutive_run(nz_.seq_, i, nz_.layout_.block_size) ? kWideRows : 0;
  }

 private:
  RowView<T> view(const T* pool, uint32_t i) const {
    const size_t chunk_stride = nz_.padded_ * kLanes;
    return {pool + nz_.row_base(i), nz_.layout_.head_dim / kLanes * chunk_stride, chunk_stride,
            kLanes};
  }
  // Rows i .. i+rows-1 (consecutive slots of one block) of every fractal column.
  void prefetch(const T* pool, uint32_t i, uint32_t rows) const {
    const T* row = pool + nz_.row_base(i);
    for (uint64_t f = 0; f < nz_.layout_.nz_fractal_columns(); ++f) {
      prefetch_bytes<2>(row + f * nz_.padded_ * kLanes, rows * kLanes * sizeof(T));
    }
  }
  // KV head g of the wide tile at i: its head_dim/16 fractal columns, 16 rows each.
  WidePrefetch wide_prefetch(const T* pool, uint32_t i, uint32_t g) const {
    if (wide_rows(i) != kWideRows) return {};
    const uint32_t columns = nz_.layout_.head_dim / kLanes;
    const T* row = pool + nz_.row_base(i) + size_t{g} * columns * nz_.padded_ * kLanes;
    return {reinterpret_cast<const char*>(row), nz_.padded_ * kLanes * sizeof(T), columns,
            cache_lines(kWideRows * kLanes * sizeof(T))};
  }
  const NzSequence<T>& nz_;
};

// head_dim % 16 != 0: fractal rows straddle heads; each position's row is gathered from its
// fractal rows (16 elements at a time) into a buffer.
template <KvElement T>
class NzGatherSource : public NoPrefetch {
 public:
  explicit NzGatherSource(const NzSequence<T>& nz) : nz_(nz) {}
  RowView<float> k_row(uint32_t i, float* scratch) const {
    return gather(nz_.cache_.k.data(), i, scratch);
  }
  RowView<float> v_row(uint32_t i, float* scratch) const {
    return gather(nz_.cache_.v.data(), i, scratch);
  }

 private:
  RowView<float> gather(const T* pool, uint32_t i, float* row) const {
    const uint64_t columns = nz_.layout_.columns();
    const T* src = pool + nz_.row_base(i);
    for (uint64_t f = 0; f * kLanes < columns; ++f) {
      const uint64_t count = std::min<uint64_t>(kLanes, columns - f * kLanes);
      convert_to_float(src + f * nz_.padded_ * kLanes, row + f * kLanes, count);
    }
    return contiguous_row<float>(row, nz_.layout_.head_dim);
  }
  const NzSequence<T>& nz_;
};

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
      decode_sequence(shape, q_b, seq.num_attended(), NzDirectSource<T>(nz), seq.attention_sums, ws,
                      out_b);
    } else {
      decode_sequence(shape, q_b, seq.num_attended(), NzGatherSource<T>(nz), seq.attention_sums, ws,
                      out_b);
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
