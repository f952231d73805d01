#include "kernels/decode_contiguous.h"

namespace kvsim::kernels {
namespace {

template <KvElement T>
class ContiguousSource {
 public:
  ContiguousSource(const ContiguousKv<T>& kv, const DecodeSequence& seq, uint32_t width)
      : kv_(kv), seq_(seq), width_(width) {}
  const T* k_row(uint32_t i, float*) const { return kv_.k.data() + offset(i); }
  const T* v_row(uint32_t i, float*) const { return kv_.v.data() + offset(i); }

 private:
  size_t offset(uint32_t i) const { return size_t{seq_.position(i)} * width_; }

  const ContiguousKv<T>& kv_;
  const DecodeSequence& seq_;
  uint32_t width_;
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
    const ContiguousSource<T> source(kv[b], seq, shape.kv_width());
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
