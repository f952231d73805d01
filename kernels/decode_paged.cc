#include "kernels/decode_paged.h"

#include "kernels/nd_row_source.h"

namespace kvsim::kernels {

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
    const NdRowSource<T> source(cache.k.data(), cache.v.data(), seqs[b], layout.kv_heads,
                                layout.head_dim, layout.block_size);
    decode_sequence(shape, q.data() + b * shape.q_width(), seqs[b].num_attended(), source,
                    seqs[b].attention_sums, ws, out.data() + b * shape.q_width());
  }
}

template void decode_attention_paged<float>(const AttentionShape&, const PagedKv<const float>&,
                                            std::span<const DecodeSequence>, std::span<const float>,
                                            std::span<float>, DecodeWorkspace*);
template void decode_attention_paged<Eigen::half>(const AttentionShape&,
                                                  const PagedKv<const Eigen::half>&,
                                                  std::span<const DecodeSequence>,
                                                  std::span<const float>, std::span<float>,
                                                  DecodeWorkspace*);

}  // namespace kvsim::kernels
