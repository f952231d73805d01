// Capacity math: how many bytes the KV cache of a model takes and how much of it fits.
//
// The one place in kvsim that turns (model, device, KV storage) into bytes per token, bytes
// per block and a block count; the simulator sizes its BlockPool from compute_capacity(), so
// `kvsim capacity` and `kvsim simulate` never disagree. All functions are pure.
//
//   bytes/token  = 2 (K,V) x layers x kv_heads x head_dim x bytes(dtype)      (MHA/GQA/MQA)
//                = layers x (kv_lora_rank + qk_rope_head_dim) x bytes(dtype)   (MLA latent)
//   + with quant_group G > 0: an fp16 scale and an fp16 zero point per G elements of each
//     head vector (groups never span heads): ceil(head_dim / G) x 32 bits per vector.
//   KV budget    = (memory x mem_fraction - weights / TP - activation reserve) x kv_memory_factor
//   blocks       = floor(KV budget / bytes per block)    (vLLM's num_gpu_blocks)
//   usable       = blocks - 1: block 0 is vLLM's null block, never lent to a request
//                  (core/block_id.h). The pool is built with `blocks`; max_tokens counts them
//                  all, as vLLM's "GPU KV cache size" line does; the sequence counts use the
//                  usable ones, which is what fits.
// Sizes are counted in bits internally so that int4 stays exact.
#pragma once

#include <cstdint>
#include <optional>

#include "core/device_spec.h"
#include "core/dtype.h"
#include "core/kv_layout.h"
#include "core/model_spec.h"
#include "core/status.h"

namespace kvsim {

// How the KV cache is stored.
struct KvStorage {
  DType dtype = DType::kFp16;  // element type of cached K and V
  uint32_t quant_group = 0;    // elements per fp16 scale + zero group; 0 = no group scales
};

// What one device caches per token: `num_tensors` tensors (K and V, or the MLA latent) per
// layer, each `heads` vectors of `vector_elements` elements.
struct KvShape {
  uint32_t num_layers = 0;
  uint32_t num_tensors = 2;      // 2 (K, V) or 1 (MLA latent)
  uint32_t heads = 0;            // KV heads on this device (1 for MLA)
  uint32_t vector_elements = 0;  // head_dim, or kv_lora_rank + qk_rope_head_dim for MLA
};

// The cached shape on one of `tp` tensor-parallel devices: KV heads are split over the
// devices (a device keeps at least one; with tp > kv_heads heads are replicated, as vLLM
// does); the MLA latent is replicated on every device. tp == 1 gives the whole model.
KvShape kv_shape(const ModelSpec& model, uint32_t tp);

// Bits of KV cache per token for a shape (all layers, K and V, group scales included).
uint64_t kv_bits_per_token(const KvShape& shape, const KvStorage& storage);

// Bytes of one block of `block_size` tokens, all layers, K and V, in the ND layout.
uint64_t kv_bytes_per_block_nd(const KvShape& shape, const KvStorage& storage, uint32_t block_size);
// The same block in the NZ layout: each layer's K and V block padded as in kv_layout.h,
// group scales (unpadded) added.
uint64_t kv_bytes_per_block_nz(const KvShape& shape, const KvStorage& storage, uint32_t block_size,
                               uint32_t nz_width);

// The block geometry of one layer's K (or V) block for a shape.
BlockLayout block_layout(const KvShape& shape, uint32_t block_size, uint32_t nz_width);

// Inputs of a capacity question. Defaults follow vLLM where it has one.
struct CapacityQuery {
  KvStorage kv;                       // KV dtype and quantization groups
  DType weight_dtype = DType::kFp16;  // dtype of the model weights
  uint32_t block_size = 0;            // tokens per block; 0 = the device's default (16 without)
  uint32_t tp = 1;                    // tensor-parallel devices sharing weights and KV heads
  double mem_fraction = 0.9;          // share of device memory the engine may use (vLLM 0.9)
  uint64_t batch = 1;                 // sequences, for kv_bytes_for_request
  uint64_t seq_len = 0;               // tokens per sequence; 0 = the model's max positions
  // Activation reserve, unless reserve_bytes is given:
  //   activation_tokens x (4 x hidden + 2 x intermediate / tp) x bytes(weight dtype)
  //   + activation_seqs x vocab x 4 (fp32 logits)
  // = the live activations of a forward pass over activation_tokens tokens (residual, normed
  // input, attention output and QKV-sized buffers ~ 4 x hidden; the gate and up projections of
  // the FFN, 2 x intermediate) plus the sampler's logits (vLLM profiles 2048 tokens, 256 seqs).
  uint64_t activation_tokens = 2048;
  uint64_t activation_seqs = 256;
  std::optional<uint64_t> reserve_bytes;    // overrides the activation-reserve formula
  std::optional<uint64_t> kv_budget_bytes;  // overrides the whole budget formula (per device)
};

// Answers, per device of the TP group unless stated. Optionals are empty where the inputs do
// not determine them (no device, no parameter count).
struct CapacityResult {
  KvShape shape_per_device;        // what one device caches per token
  KvShape shape_model;             // the whole model (tp = 1)
  uint32_t block_size = 0;         // resolved block size
  bool nz = false;                 // blocks use the NZ layout (device kv_layout nz)
  uint32_t nz_width = 0;           // fractal width used when nz
  uint64_t kv_bits_per_token = 0;  // whole model
  uint64_t kv_bits_per_token_per_device = 0;
  uint64_t kv_bytes_per_block = 0;               // per device, NZ-padded on NZ devices
  uint64_t kv_bytes_per_block_nd = 0;            // per device, unpadded ND size
  uint64_t seq_len = 0;                          // resolved sequence length
  uint64_t tokens_kept_per_seq = 0;              // min(seq_len, sliding window)
  uint64_t kv_bytes_for_request = 0;             // whole model: batch x tokens kept x bytes/token
  std::optional<uint64_t> weight_bytes;          // per device: params x bytes(weight) / tp
  std::optional<uint64_t> reserve_bytes;         // per device activation reserve
  std::optional<uint64_t> usable_bytes;          // memory x mem_fraction
  std::optional<uint64_t> kv_budget_bytes;       // per device
  std::optional<uint64_t> num_blocks;            // per device pool size, null block included
  std::optional<uint64_t> num_usable_blocks;     // num_blocks - 1 (0 when there are none)
  std::optional<uint64_t> max_tokens;            // num_blocks x block_size (vLLM's log line)
  std::optional<uint64_t> max_batch_at_seq_len;  // sequences of seq_len that fit (usable blocks)
  std::optional<uint64_t> max_seq_len_at_batch;  // tokens per sequence for `batch` sequences
  bool max_seq_len_capped = false;  // max_seq_len_at_batch was cut to the model's max positions
  bool budget_negative = false;     // weights + reserve exceed usable memory: 0 blocks
};

// Validates the query against the model and device (dtype supported, tp divides heads or
// heads divide tp, nothing overflows 64 bits) and computes every answer.
StatusOr<CapacityResult> compute_capacity(const ModelSpec& model, const DeviceSpec* device,
                                          const CapacityQuery& query);

}  // namespace kvsim
