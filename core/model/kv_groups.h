// KV cache groups: how vLLM's hybrid KV cache manager lays out a model whose layers cache
// differently (sliding-window layers beside full ones, recurrent layers beside attention),
// as far as capacity goes. The simulator's KvCacheCoordinator (core/cache/kv_cache_coordinator.h)
// allocates from the same plan.
//
// Semantics (vLLM v1, vllm/v1/core/kv_cache_utils.py, kv_cache_interface.py and
// model_executor/models/config.py at commit 001cabc1; see docs/architecture.md):
//
//   1. Specs. Each layer group is one spec with a per-layer page (bytes of one layer's block):
//        full / sliding_window  block_size x kv_heads x (head_dim + v_head_dim) x bytes(KV)
//        mla                    block_size x (kv_lora_rank + qk_rope_head_dim) x bytes(KV)
//        recurrent              one state: conv + ssm elements x bytes(state dtype), whatever
//                               the sequence length (a "block" holds a whole sequence's state)
//      Layers without cache (kind none) take no part.
//   2. One page size. With recurrent layers the attention block size is raised until an
//      attention page holds a state: block = 16 x cdiv(state_page, 16 x attention_page_1_token)
//      (64 for MLA attention), unless the requested block is larger; the state page is then
//      padded to the attention page. Attention specs of different page sizes get block sizes
//      multiplied by max_page / page (an error when it does not divide).
//   3. Groups. Specs with the same kind and shape merge. When every spec has the same kind
//      (all full, all sliding with one window, all recurrent) there is one group of all layers
//      whose block is the sum of their pages (UniformTypeKVCacheSpecs). Otherwise each spec's
//      layers are cut into groups of `layers_per_group` slots, layers_per_group = the smallest
//      spec's layer count, or the largest's when largest < 1.5 x smallest; a spec's last group
//      is padded with empty slots (Gemma-3-27B: 52 sliding + 10 full -> 6 + 1 groups of 10
//      slots, 8 padding).
//   4. One pool. Block id b means page b in each of the layers_per_group tensors; every group
//      draws its blocks from the same free queue and keeps its own block table per request:
//        num_blocks = floor(budget / page / layers_per_group)
//        vLLM's "GPU KV cache size" = num_blocks / num_groups x min block size (tokens)
//   5. Blocks per request of `seq_len` tokens, summed over the groups (a request holds a block
//      table in every group):
//        full, mla       cdiv(seq_len, block)
//        sliding W       cdiv(min(W - 1 + max_num_batched_tokens, seq_len), block) + 1
//                        (the window plus the largest chunk; +1 because the window need not
//                        start on a block boundary; earlier blocks are freed)
//        recurrent       1 (one state per sequence; no prefix caching of states)
//      sequences that fit = floor(num_blocks / blocks per request), vLLM's "Maximum
//      concurrency" rounded down.
#pragma once

#include <cstdint>
#include <vector>

#include "core/base/status.h"
#include "core/model/kv_shape.h"
#include "core/model/model_spec.h"

namespace kvsim {

// One layer group's cache bytes, for the whole model and on one of `tp` devices.
struct LayerGroupBytes {
  LayerGroup group;
  KvShape shape_model;  // attention kinds; num_layers = the group's layers
  KvShape shape_per_device;
  uint64_t bits_per_token = 0;  // whole model (0 for recurrent and none)
  uint64_t bits_per_token_per_device = 0;
  uint64_t state_bits_per_layer = 0;             // recurrent, whole model, one sequence
  uint64_t state_bits_per_layer_per_device = 0;  // recurrent, one device
};

// The bytes of every layer group of the model (none groups included, with zeros).
StatusOr<std::vector<LayerGroupBytes>> layer_group_bytes(const ModelSpec& model,
                                                         const KvStorage& storage, uint32_t tp);

// One spec of step 1, per device, after page unification.
struct KvCacheSpec {
  LayerKind kind = LayerKind::kFull;
  uint32_t num_layers = 0;
  uint32_t window_tokens = 0;    // sliding_window
  uint32_t block_size = 0;       // tokens per block; recurrent: 0 (one state per sequence)
  uint64_t real_page_bytes = 0;  // one layer's block (or state) before padding
  uint64_t page_bytes = 0;       // after padding to the common page
};

// One of vLLM's KV cache groups: `num_layers` layers of spec `spec` (the rest of its
// layers_per_group slots are padding).
struct KvCacheGroup {
  size_t spec = 0;
  uint32_t num_layers = 0;
};

struct KvCachePlan {
  std::vector<KvCacheSpec> specs;
  std::vector<KvCacheGroup> groups;
  bool uniform_type = false;      // one group of every layer; block = sum of their pages
  uint32_t layers_per_group = 0;  // tensors sharing the pool (uniform_type: every layer)
  uint64_t page_bytes = 0;        // the common page (uniform_type: 0, pages differ)
  uint32_t num_padding_layers = 0;

  // Bytes that one block id takes across every tensor, per device.
  uint64_t bytes_per_block() const;
  // The smallest attention block size (tokens).
  uint32_t min_block_size() const;
};

// Steps 1-3 for a model with more than one cache group (is_hybrid). `block_size` is the
// requested (or device default) attention block; `nz` pads attention pages as the NZ layout
// does (core/model/kv_layout.h) with fractal width `nz_width`.
StatusOr<KvCachePlan> plan_kv_cache(const ModelSpec& model, const KvStorage& storage, uint32_t tp,
                                    uint32_t block_size, bool nz, uint32_t nz_width);

// Step 5 for one group of `kind` (window_tokens for sliding_window; block_size tokens).
uint64_t group_blocks_per_request(LayerKind kind, uint32_t window_tokens, uint32_t block_size,
                                  uint64_t seq_len, uint64_t max_num_batched_tokens);

// Step 5: blocks one request of `seq_len` tokens holds at most, summed over the groups.
uint64_t blocks_per_request(const KvCachePlan& plan, uint64_t seq_len,
                            uint64_t max_num_batched_tokens);

// Step 4: the token count vLLM reports for a pool of `num_blocks`.
uint64_t reported_tokens(const KvCachePlan& plan, uint64_t num_blocks);

}  // namespace kvsim
