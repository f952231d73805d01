#include "kernels/decode_contiguous.h"

#include "kernels/nd_row_source.h"

namespace kvsim::kernels {

template <KvElement T>
void decode_attention_contiguous(const AttentionShape& shape, std::span<const ContiguousKv<T>> kv,
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
    const NdRowSource<T> source(kv[b].k.data(), kv[b].v.data(), seq, shape.kv_heads, shape.head_dim,
                                /*block_size=*/0);
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
