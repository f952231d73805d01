// KvStore: the paged K and V storage of every layer of the forward pass, and the kernels that
// read and write it. Blocks are addressed by the ids of a KvCacheManager block table; the
// store holds num_blocks blocks per layer and knows nothing about which sequence owns which.
//
//   backend          per layer                                   kernels
//   ND  fp32/fp16    [num_blocks, block_size, kv_heads, head_dim]  write_kv_nd, decode_paged,
//                                                                  prefill_flash
//   NZ  fp32/fp16    [num_blocks, ceil(C/16), padded_block, 16]    write_kv_nz, decode_nz
//   int8             Int8KvCache (kv_quant.h)                      write_kv_int8, decode_int8
//   int4 KIVI        Int4KiviCache + fp32 ND residual              write_kv_nd +
//                                                                  kivi_quantize_group,
//                                                                  decode_kivi
// Chunked prefill with the flash kernel is offered by the ND backends; the others decode one
// token at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "core/base/status.h"
#include "core/model/dtype.h"
#include "kernels/attention_shape.h"
#include "kernels/kv_cache_view.h"
#include "kernels/kv_quant.h"
#include "kernels/prefill_flash.h"
#include "kernels/write_kv.h"

namespace kvsim::kernels {

enum class KvQuant { kNone, kInt8, kInt4Kivi };

struct KvStoreOptions {
  bool nz = false;             // NZ layout instead of ND (unquantized storage only)
  DType dtype = DType::kFp32;  // fp32 or fp16 storage when not quantized
  KvQuant quant = KvQuant::kNone;
  KiviConfig kivi;           // for kInt4Kivi
  uint32_t block_size = 16;  // tokens per block (a multiple of kivi.group for KIVI)
};

class KvStore {
 public:
  virtual ~KvStore() = default;

  // Stores K, V rows [sum seqlen, kv_dim] of `layer` (write_kv's batch format).
  virtual void write(uint32_t layer, std::span<const KvWrite> writes, const RowMatrix& k,
                     const RowMatrix& v) = 0;

  // One decode step of a batch: seqs[i] is sequence slot i, q and out [batch, num_heads *
  // head_dim].
  virtual void decode(uint32_t layer, std::span<const DecodeSequence> seqs,
                      std::span<const float> q, std::span<float> out) = 0;

  // Chunked prefill: q [n, num_heads * head_dim] at positions num_cached .. num_cached+n-1,
  // whose K, V are already written -> out [n, num_heads * head_dim].
  virtual bool supports_prefill() const { return false; }
  virtual void prefill(uint32_t layer, std::span<const uint32_t> block_table, uint32_t num_cached,
                       const RowMatrix& q, RowMatrix* out);

  // Every layer now holds positions [0, num_tokens) of sequence slot `slot` (KIVI quantizes
  // the key groups that left its full-precision window).
  virtual void tokens_stored(uint32_t slot, std::span<const uint32_t> block_table,
                             uint32_t num_tokens);

  // New sequences start in every slot (per-sequence state such as KIVI's quantized count is
  // cleared).
  virtual void reset() {}
};

// A store for `num_layers` layers of `shape`, `num_blocks` blocks each, serving up to
// `max_sequences` sequence slots. Errors: a dtype other than fp32/fp16, NZ with quantization,
// a KIVI group that does not divide the block size.
StatusOr<std::unique_ptr<KvStore>> make_kv_store(const KvStoreOptions& options,
                                                 const AttentionShape& shape, uint32_t num_layers,
                                                 uint32_t num_blocks, uint32_t max_sequences);

}  // namespace kvsim::kernels
