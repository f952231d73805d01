#include "kernels/decode_quantized.h"

namespace kvsim::kernels {
namespace {

void check_layout(const AttentionShape& shape, const BlockLayout& layout) {
  KVSIM_CHECK(layout.kv_heads == shape.kv_heads && layout.head_dim == shape.head_dim &&
                  layout.block_size > 0,
              "quantized decode: cache layout does not match the attention shape");
}

class Int8Source : public NoPrefetch {
 public:
  Int8Source(const Int8KvCache& cache, const DecodeSequence& seq) : cache_(cache), seq_(seq) {}
  RowView<float> k_row(uint32_t i, float* row) const {
    return contiguous_row(fill(i, cache_.k, cache_.k_scale, row), cache_.layout.head_dim);
  }
  RowView<float> v_row(uint32_t i, float* row) const {
    return contiguous_row(fill(i, cache_.v, cache_.v_scale, row), cache_.layout.head_dim);
  }

 private:
  const float* fill(uint32_t i, const std::vector<int8_t>& codes,
                    const std::vector<Eigen::half>& scales, float* row) const {
    const BlockLayout& layout = cache_.layout;
    const uint32_t pos = seq_.position(i);
    const size_t slot_index =
        size_t{seq_.block_table[pos / layout.block_size]} * layout.block_size +
        pos % layout.block_size;
    const uint32_t d = layout.head_dim;
    for (uint32_t h = 0; h < layout.kv_heads; ++h) {
      const Eigen::half scale = scales[slot_index * layout.kv_heads + h];
      const int8_t* src = codes.data() + (slot_index * layout.kv_heads + h) * d;
      for (uint32_t e = 0; e < d; ++e) row[size_t{h} * d + e] = dequantize_int8(src[e], scale);
    }
    return row;
  }

  const Int8KvCache& cache_;
  const DecodeSequence& seq_;
};

template <KvElement T>
class KiviSource : public NoPrefetch {
 public:
  KiviSource(const Int4KiviCache& cache, const PagedKv<const T>& residual,
             const DecodeSequence& seq, uint32_t num_quantized)
      : cache_(cache), residual_(residual), seq_(seq), num_quantized_(num_quantized) {}
  RowView<float> k_row(uint32_t i, float* row) const {
    return contiguous_row(fill(i, true, row), cache_.layout.head_dim);
  }
  RowView<float> v_row(uint32_t i, float* row) const {
    return contiguous_row(fill(i, false, row), cache_.layout.head_dim);
  }

 private:
  const float* fill(uint32_t i, bool key, float* row) const {
    const BlockLayout& layout = cache_.layout;
    const uint32_t pos = seq_.position(i);
    const size_t block = seq_.block_table[pos / layout.block_size];
    const uint32_t slot = pos % layout.block_size;
    if (pos < num_quantized_) {
      if (key)
        cache_.dequantize_k_row(block, slot, row);
      else
        cache_.dequantize_v_row(block, slot, row);
    } else {
      const T* src = (key ? residual_.k.data() : residual_.v.data()) +
                     (block * layout.block_size + slot) * layout.columns();
      convert_to_float(src, row, layout.columns());
    }
    return row;
  }

  const Int4KiviCache& cache_;
  const PagedKv<const T>& residual_;
  const DecodeSequence& seq_;
  uint32_t num_quantized_;
};

}  // namespace

void decode_attention_int8(const AttentionShape& shape, const Int8KvCache& cache,
                           std::span<const DecodeSequence> seqs, std::span<const float> q,
                           std::span<float> out, DecodeWorkspace* ws) {
  check_decode_batch(shape, seqs.size(), q, out);
  check_layout(shape, cache.layout);
  for (size_t b = 0; b < seqs.size(); ++b) {
    check_paged_sequence(seqs[b], cache.layout.block_size, cache.num_blocks);
    decode_sequence(shape, q.data() + b * shape.q_width(), seqs[b].num_attended(),
                    Int8Source(cache, seqs[b]), seqs[b].attention_sums, ws,
                    out.data() + b * shape.q_width());
  }
}

template <KvElement T>
void decode_attention_kivi(const AttentionShape& shape, const Int4KiviCache& cache,
                           const PagedKv<const T>& residual, std::span<const DecodeSequence> seqs,
                           std::span<const uint32_t> num_quantized, std::span<const float> q,
                           std::span<float> out, DecodeWorkspace* ws) {
  check_decode_batch(shape, seqs.size(), q, out);
  check_layout(shape, cache.layout);
  KVSIM_CHECK(num_quantized.size() == seqs.size(), "decode_kivi: one num_quantized per sequence");
  KVSIM_CHECK(residual.k.size() == size_t{cache.num_blocks} * cache.layout.nd_elements() &&
                  residual.v.size() == residual.k.size(),
              "decode_kivi: the residual cache must have the KIVI cache's blocks");
  for (size_t b = 0; b < seqs.size(); ++b) {
    check_paged_sequence(seqs[b], cache.layout.block_size, cache.num_blocks);
    KVSIM_CHECK(
        num_quantized[b] % cache.config.group == 0 && num_quantized[b] <= seqs[b].context_len,
        "decode_kivi: num_quantized must be whole groups within the context");
    decode_sequence(shape, q.data() + b * shape.q_width(), seqs[b].num_attended(),
                    KiviSource<T>(cache, residual, seqs[b], num_quantized[b]),
                    seqs[b].attention_sums, ws, out.data() + b * shape.q_width());
  }
}

template void decode_attention_kivi<float>(const AttentionShape&, const Int4KiviCache&,
                                           const PagedKv<const float>&,
                                           std::span<const DecodeSequence>,
                                           std::span<const uint32_t>, std::span<const float>,
                                           std::span<float>, DecodeWorkspace*);
template void decode_attention_kivi<Eigen::half>(const AttentionShape&, const Int4KiviCache&,
                                                 const PagedKv<const Eigen::half>&,
                                                 std::span<const DecodeSequence>,
                                                 std::span<const uint32_t>, std::span<const float>,
                                                 std::span<float>, DecodeWorkspace*);

}  // namespace kvsim::kernels
