#include "kernels/decode_contiguous.h"

namespace kvsim::kernels {
namespace {

template <KvElement T>
class ContiguousSource {
 public:
  ContiguousSource(const ContiguousKv<T>& kv, const DecodeSequence& seq,
                   const AttentionShape& shape)
      : kv_(kv), seq_(seq), width_(shape.kv_width()), head_dim_(shape.head_dim) {}
  RowView<T> k_row(uint32_t i, float*) const { return view(kv_.k.data() + offset(i)); }
  RowView<T> v_row(uint32_t i, float*) const { return view(kv_.v.data() + offset(i)); }
  uint32_t wide_rows(uint32_t i) const {  // wide tiles need whole 16-lane chunks
    return head_dim_ % kLanes == 0 && consecutive_run(seq_, i, 0) ? kWideRows : 0;
  }
  void prefetch_wide_k(uint32_t i) const { prefetch_wide(kv_.k.data(), i); }
  void prefetch_wide_v(uint32_t i) const { prefetch_wide(kv_.v.data(), i); }
  void prefetch_k(uint32_t i) const { prefetch_bytes<2>(kv_.k.data() + offset(i), width_ * sizeof(T)); }
  void prefetch_v(uint32_t i) const { prefetch_bytes<2>(kv_.v.data() + offset(i), width_ * sizeof(T)); }

 private:
  size_t offset(uint32_t i) const { return size_t{seq_.position(i)} * width_; }
  RowView<T> view(const T* row) const { return {row, head_dim_, kLanes, width_}; }
  void prefetch_wide(const T* pool, uint32_t i) const {
    if (wide_rows(i) == kWideRows) prefetch_bytes<2>(pool + offset(i), kWideRows * width_ * sizeof(T));
  }

  const ContiguousKv<T>& kv_;
  const DecodeSequence& seq_;
  uint32_t width_;
  uint32_t head_dim_;
};

}  // namespace

template <KvElement T>
void decode_attention_contiguous(const AttentionShape& shape,
                                 std::span<const ContiguousKv<T>> kv,
                                 std::span<const DecodeSequence> seqs, std::span<const float> q,
                                 std::span<float> out, DecodeWorkspace* ws) {
  check_decode_batch(shape, seqs.size(), q, out);
  KVSIM_CHECK(kv.size() == seqs.size(), "decode_contiguous: one K/V pair per sequence");
  for (size_t b = 0; b < seqs.size(); ++b) {
    const DecodeSequence& seq = seqs[b];
    check_sequence(seq);
    const size_t needed = size_t{seq.context_len} * shape.kv_width();
    KVSIM_CHECK(kv[b].k.size() >= needed && kv[b].v.size() >= needed,
                "decode_contiguous: K/V shorter than context_len");
    const ContiguousSource<T> source(kv[b], seq, shape);
    decode_sequence(shape, q.data() + b * shape.q_width(), seq.num_attended(), source,
                    seq.attention_sums, ws, out.data() + b * shape.q_width());
  }
}

template void decode_attention_contiguous<float>(const AttentionShape&,
                                                 std::span<const ContiguousKv<float>>,
                                                 std::span<const DecodeSequence>,
                                                 std::span<const float>, std::span<float>,
                                                 DecodeWorkspace*);
template void decode_attention_contiguous<Eigen::half>(const AttentionShape&,
                                                       std::span<const ContiguousKv<Eigen::half>>,
                                                       std::span<const DecodeSequence>,
                                                       std::span<const float>, std::span<float>,
                                                       DecodeWorkspace*);

}  // namespace kvsim::kernels
