#include "kernels/decode_paged.h"

namespace kvsim::kernels {
namespace {

template <KvElement T>
class PagedNdSource {
 public:
  PagedNdSource(const PagedKv<const T>& cache, const DecodeSequence& seq)
      : cache_(cache), seq_(seq), block_size_(cache.layout.block_size),
        width_(cache.layout.columns()) {}
  RowView<T> k_row(uint32_t i, float*) const { return view(cache_.k.data() + offset(i)); }
  RowView<T> v_row(uint32_t i, float*) const { return view(cache_.v.data() + offset(i)); }
  uint32_t wide_rows(uint32_t i) const {  // wide tiles need whole 16-lane chunks
    return cache_.layout.head_dim % kLanes == 0 && consecutive_run(seq_, i, block_size_)
               ? kWideRows
               : 0;
  }
  void prefetch_wide_k(uint32_t i) const { prefetch_wide(cache_.k.data(), i); }
  void prefetch_wide_v(uint32_t i) const { prefetch_wide(cache_.v.data(), i); }
  void prefetch_k(uint32_t i) const { prefetch_bytes<2>(cache_.k.data() + offset(i), width_ * sizeof(T)); }
  void prefetch_v(uint32_t i) const { prefetch_bytes<2>(cache_.v.data() + offset(i), width_ * sizeof(T)); }

 private:
  RowView<T> view(const T* row) const {
    return {row, cache_.layout.head_dim, kLanes, width_};
  }
  void prefetch_wide(const T* pool, uint32_t i) const {
    if (wide_rows(i) == kWideRows) prefetch_bytes<2>(pool + offset(i), kWideRows * width_ * sizeof(T));
  }
  size_t offset(uint32_t i) const {
    const uint32_t pos = seq_.position(i);
    const size_t block = seq_.block_table[pos / block_size_];
    return (block * block_size_ + pos % block_size_) * width_;
  }

  const PagedKv<const T>& cache_;
  const DecodeSequence& seq_;
  uint32_t block_size_;
  size_t width_;
};

}  // namespace

template <KvElement T>
void decode_attention_paged(const AttentionShape& shape, const PagedKv<const T>& cache,
                            std::span<const DecodeSequence> seqs, std::span<const float> q,
                            std::span<float> out, DecodeWorkspace* ws) {
  check_decode_batch(shape, seqs.size(), q, out);
  const BlockLayout& layout = cache.layout;
  KVSIM_CHECK(layout.kv_heads == shape.kv_heads && layout.head_dim == shape.head_dim &&
                  layout.block_size > 0,
              "paged decode: cache layout does not match the attention shape");
  KVSIM_CHECK(cache.k.size() == cache.v.size() && cache.k.size() % layout.nd_elements() == 0,
              "paged decode: K and V must hold whole ND blocks");
  const uint64_t num_blocks = cache.k.size() / layout.nd_elements();
  for (size_t b = 0; b < seqs.size(); ++b) {
    check_paged_sequence(seqs[b], layout.block_size, num_blocks);
    const PagedNdSource<T> source(cache, seqs[b]);
    decode_sequence(shape, q.data() + b * shape.q_width(), seqs[b].num_attended(), source,
                    seqs[b].attention_sums, ws, out.data() + b * shape.q_width());
  }
}

template void decode_attention_paged<float>(const AttentionShape&, const PagedKv<const float>&,
                                            std::span<const DecodeSequence>,
                                            std::span<const float>, std::span<float>,
                                            DecodeWorkspace*);
template void decode_attention_paged<Eigen::half>(const AttentionShape&,
                                                  const PagedKv<const Eigen::half>&,
                                                  std::span<const DecodeSequence>,
                                                  std::span<const float>, std::span<float>,
                                                  DecodeWorkspace*);

}  // namespace kvsim::kernels
