#include "kernels/kv_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/engine/capacity.h"
#include "kernels/decode_nz.h"
#include "kernels/decode_paged.h"
#include "kernels/decode_quantized.h"

namespace kvsim::kernels {
namespace {

std::span<const float> row_span(const RowMatrix& m) {
  return {m.data(), static_cast<size_t>(m.size())};
}

// One layer's block geometry, from the capacity planner (NZ fractal width 16).
BlockLayout make_layout(const AttentionShape& shape, uint32_t block_size) {
  return block_layout(KvShape{1, 2, shape.kv_heads, shape.head_dim}, block_size, kLanes);
}

// fp32 / fp16 paged storage in ND or NZ.
template <KvElement T>
class PagedStore final : public KvStore {
 public:
  PagedStore(const AttentionShape& shape, uint32_t num_layers, uint32_t num_blocks,
             uint32_t block_size, bool nz)
      : shape_(shape), layout_(make_layout(shape, block_size)), nz_(nz) {
    const size_t elements =
        size_t{num_blocks} * (nz ? layout_.nz_elements() : layout_.nd_elements());
    k_.assign(num_layers, std::vector<T>(elements, from_float<T>(0.0f)));
    v_.assign(num_layers, std::vector<T>(elements, from_float<T>(0.0f)));
  }

  void write(uint32_t layer, std::span<const KvWrite> writes, const RowMatrix& k,
             const RowMatrix& v) override {
    const PagedKv<T> cache{layout_, k_[layer], v_[layer]};
    if (nz_)
      write_kv_nz<T>(cache, writes, row_span(k), row_span(v));
    else
      write_kv_nd<T>(cache, writes, row_span(k), row_span(v));
  }

  void decode(uint32_t layer, std::span<const DecodeSequence> seqs, std::span<const float> q,
              std::span<float> out) override {
    const PagedKv<const T> cache{layout_, k_[layer], v_[layer]};
    if (nz_)
      decode_attention_nz<T>(shape_, cache, seqs, q, out, &ws_);
    else
      decode_attention_paged<T>(shape_, cache, seqs, q, out, &ws_);
  }

  bool supports_prefill() const override { return !nz_; }
  void prefill(uint32_t layer, std::span<const uint32_t> block_table, uint32_t num_cached,
               const RowMatrix& q, RowMatrix* out) override {
    KVSIM_CHECK(!nz_, "prefill: the flash kernel reads ND caches");
    const PrefillSequence seq{block_table, num_cached, static_cast<uint32_t>(q.rows())};
    out->resize(q.rows(), q.cols());
    prefill_attention_flash<T>(shape_, PagedKv<const T>{layout_, k_[layer], v_[layer]}, {&seq, 1},
                               row_span(q), {out->data(), size_t(out->size())}, &flash_ws_);
  }

 private:
  AttentionShape shape_;
  BlockLayout layout_;
  bool nz_;
  std::vector<std::vector<T>> k_, v_;
  DecodeWorkspace ws_;
  FlashWorkspace flash_ws_;
};

class Int8Store final : public KvStore {
 public:
  Int8Store(const AttentionShape& shape, uint32_t num_layers, uint32_t num_blocks,
            uint32_t block_size)
      : shape_(shape),
        caches_(num_layers, Int8KvCache(make_layout(shape, block_size), num_blocks)) {}

  void write(uint32_t layer, std::span<const KvWrite> writes, const RowMatrix& k,
             const RowMatrix& v) override {
    write_kv_int8(&caches_[layer], writes, row_span(k), row_span(v));
  }
  void decode(uint32_t layer, std::span<const DecodeSequence> seqs, std::span<const float> q,
              std::span<float> out) override {
    decode_attention_int8(shape_, caches_[layer], seqs, q, out, &ws_);
  }

 private:
  AttentionShape shape_;
  std::vector<Int8KvCache> caches_;
  DecodeWorkspace ws_;
};

// KIVI: every token goes to the fp32 ND residual first; key groups are quantized into the
// int4 cache once they are older than the newest R tokens (kivi_num_quantized).
class KiviStore final : public KvStore {
 public:
  KiviStore(const AttentionShape& shape, uint32_t num_layers, uint32_t num_blocks,
            uint32_t block_size, const KiviConfig& config, uint32_t max_sequences)
      : shape_(shape),
        layout_(make_layout(shape, block_size)),
        config_(config),
        residual_k_(num_layers, std::vector<float>(size_t{num_blocks} * layout_.nd_elements())),
        residual_v_(residual_k_),
        caches_(num_layers, Int4KiviCache(layout_, num_blocks, config)),
        num_quantized_(max_sequences, 0) {}

  void write(uint32_t layer, std::span<const KvWrite> writes, const RowMatrix& k,
             const RowMatrix& v) override {
    write_kv_nd<float>(residual(layer), writes, row_span(k), row_span(v));
  }

  void decode(uint32_t layer, std::span<const DecodeSequence> seqs, std::span<const float> q,
              std::span<float> out) override {
    decode_attention_kivi<float>(shape_, caches_[layer], residual(layer), seqs,
                                 std::span<const uint32_t>(num_quantized_).first(seqs.size()), q,
                                 out, &ws_);
  }

  void tokens_stored(uint32_t slot, std::span<const uint32_t> block_table,
                     uint32_t num_tokens) override {
    const uint32_t target = kivi_num_quantized(config_, num_tokens);
    for (uint32_t& done = num_quantized_[slot]; done < target; done += config_.group) {
      for (uint32_t layer = 0; layer < caches_.size(); ++layer) {
        kivi_quantize_group<float>(residual(layer), block_table, done, &caches_[layer]);
      }
    }
  }

  void reset() override { std::fill(num_quantized_.begin(), num_quantized_.end(), 0u); }

 private:
  PagedKv<float> residual(uint32_t layer) {
    return {layout_, residual_k_[layer], residual_v_[layer]};
  }

  AttentionShape shape_;
  BlockLayout layout_;
  KiviConfig config_;
  std::vector<std::vector<float>> residual_k_, residual_v_;
  std::vector<Int4KiviCache> caches_;
  std::vector<uint32_t> num_quantized_;  // per sequence slot
  DecodeWorkspace ws_;
};

}  // namespace

void KvStore::prefill(uint32_t, std::span<const uint32_t>, uint32_t, const RowMatrix&, RowMatrix*) {
  KVSIM_CHECK(false, "prefill() on a KV store without supports_prefill()");
}

void KvStore::tokens_stored(uint32_t, std::span<const uint32_t>, uint32_t) {}

StatusOr<std::unique_ptr<KvStore>> make_kv_store(const KvStoreOptions& options,
                                                 const AttentionShape& shape, uint32_t num_layers,
                                                 uint32_t num_blocks, uint32_t max_sequences) {
  KVSIM_RETURN_IF_ERROR(shape.validate());
  if (options.block_size == 0) return Status::invalid_argument("KV block size must be > 0");
  if (options.quant != KvQuant::kNone && options.nz) {
    return Status::invalid_argument("quantized KV caches use the ND layout (no --kv-layout nz)");
  }
  switch (options.quant) {
    case KvQuant::kInt8:
      return {std::make_unique<Int8Store>(shape, num_layers, num_blocks, options.block_size)};
    case KvQuant::kInt4Kivi:
      KVSIM_RETURN_IF_ERROR(validate_kivi(options.kivi, options.block_size));
      return {std::make_unique<KiviStore>(shape, num_layers, num_blocks, options.block_size,
                                          options.kivi, max_sequences)};
    case KvQuant::kNone:
      break;
  }
  if (options.dtype == DType::kFp32) {
    return {std::make_unique<PagedStore<float>>(shape, num_layers, num_blocks, options.block_size,
                                                options.nz)};
  }
  if (options.dtype == DType::kFp16) {
    return {std::make_unique<PagedStore<Eigen::half>>(shape, num_layers, num_blocks,
                                                      options.block_size, options.nz)};
  }
  return Status::invalid_argument(
      fmt::format("KV storage dtype '{}': the kernels store fp32 or fp16 (or int8/int4 quantized)",
                  dtype_name(options.dtype)));
}

}  // namespace kvsim::kernels
