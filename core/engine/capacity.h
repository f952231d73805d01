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
//     (core/model/kv_shape.h)
//   KV budget    = given, or what the engine sets aside subtracted from the device memory
//                  (core/engine/engine_memory.h; core/engine/capacity_plan.h asks the
//                  engine, then this)
//   blocks       = floor(KV budget / bytes per block)    (vLLM's num_gpu_blocks; the one place
//                  a budget becomes blocks)
//   usable       = blocks - 1: block 0 is vLLM's null block, never lent to a request
//                  (core/cache/block_id.h). The pool is built with `blocks`; max_tokens counts them
//                  all, as vLLM's "GPU KV cache size" line does; the sequence counts use the
//                  usable ones, which is what fits.
// Sizes are counted in bits internally so that int4 stays exact.
//
// Hybrid models (is_hybrid: sliding-window layers beside full ones, recurrent layers beside
// attention; core/model/model_spec.h) follow vLLM's hybrid KV cache manager
// (core/model/kv_groups.h): one page size across the groups, per-group block tables drawing on one
// pool of blocks, sliding-window groups holding only the window's blocks
// (cdiv(min(W - 1 + max_num_batched_tokens, seq_len), block) + 1 per request) and recurrent
// layers one state per sequence:
//   blocks       = floor(KV budget / page / layers_per_group)
//   max_tokens   = blocks / num_groups x block        (vLLM's "GPU KV cache size")
//   sequences    = floor(blocks / sum over groups of the blocks one sequence holds)
// A uniform model (every layer caches alike) takes the single-group formulas above, exactly
// as before layer groups existed.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/base/status.h"
#include "core/engine/parallel_layout.h"
#include "core/model/device_spec.h"
#include "core/model/dtype.h"
#include "core/model/kv_groups.h"
#include "core/model/kv_layout.h"
#include "core/model/kv_shape.h"
#include "core/model/model_spec.h"

namespace kvsim {

// Inputs of a capacity question. Defaults follow vLLM where it has one.
struct CapacityQuery {
  KvStorage kv;                       // KV dtype and quantization groups
  DType weight_dtype = DType::kFp16;  // dtype of the model weights
  uint32_t block_size = 0;            // tokens per block; 0 = the device's default (16 without)
  uint32_t tp = 1;                    // tensor-parallel devices sharing weights and KV heads
  // The rest of a parallel layout (core/engine/parallel_layout.h); 1 each: a plain TP group.
  uint32_t dp = 1;     // attention data-parallel ranks inside the TP group (attention TP = tp / dp)
  uint32_t ep = 1;     // ranks the routed experts are divided over
  uint32_t pp = 1;     // pipeline stages
  uint64_t batch = 1;  // sequences, for kv_bytes_for_request
  uint64_t seq_len = 0;  // tokens per sequence; 0 = the model's max positions (plan_capacity:
                         // the engine's max_model_len, --max-model-len or a deployment's)
  // Hybrid models: the chunked-prefill budget a sliding-window group's blocks must cover
  // (vLLM's max_num_batched_tokens; core/engine/capacity_plan.h sets the engine's resolved value;
  // 8192 is `vllm serve`'s default on >= 70 GiB GPUs other than the A100, 2048 on the others).
  uint64_t max_num_batched_tokens = 8192;
  // The KV budget per device: given (--kv-budget-bytes), or the engine's available KV memory
  // (core/engine/capacity_plan.h fills it from core/engine/engine_memory.h). Empty: no
  // block counts.
  std::optional<uint64_t> kv_budget_bytes;
};

inline ParallelLayout parallel_layout(const CapacityQuery& query) {
  return ParallelLayout{.tp = query.tp, .dp = query.dp, .ep = query.ep, .pp = query.pp};
}

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
  std::optional<uint64_t> weight_bytes;          // per device, core/model/weight_memory.h
  std::optional<RankWeights> rank_weights;       // its parts by layout, when weight_bytes is set
  std::optional<uint64_t> kv_budget_bytes;       // per device (the query's)
  std::optional<uint64_t> num_blocks;            // per device pool size, null block included
  std::optional<uint64_t> num_usable_blocks;     // num_blocks - 1 (0 when there are none)
  std::optional<uint64_t> max_tokens;            // num_blocks x block_size (vLLM's log line)
  std::optional<uint64_t> max_batch_at_seq_len;  // sequences of seq_len that fit (usable blocks)
  std::optional<uint64_t> max_seq_len_at_batch;  // tokens per sequence for `batch` sequences
  bool max_seq_len_capped = false;  // max_seq_len_at_batch was cut to the model's max positions

  // Every layer group's bytes (one entry for a uniform model).
  std::vector<LayerGroupBytes> groups;
  // Hybrid models only: vLLM's KV cache groups and their common page. For them
  // kv_bits_per_token sums the attention groups (what one more token adds while every window
  // is still filling), kv_bytes_per_block is one block id across the layers_per_group tensors,
  // kv_bytes_for_request counts each group's tokens kept and the recurrent states exactly,
  // tokens_kept_per_seq is seq_len, and the counts follow core/model/kv_groups.h.
  std::optional<KvCachePlan> hybrid;
  uint64_t blocks_per_seq = 0;  // blocks one sequence of seq_len holds (all groups)
};

// Validates the query against the model and device (dtype supported, the parallel layout
// (validate_parallel_layout), its attention TP divides heads or heads divide it, nothing
// overflows 64 bits) and computes every answer. With a layout "per device" is per rank: the KV
// of the rank's attention-TP share of its stage's layers, the weights of rank_weights().
StatusOr<CapacityResult> compute_capacity(const ModelSpec& model, const DeviceSpec* device,
                                          const CapacityQuery& query);

}  // namespace kvsim
