// KV shapes: what one layer group caches per token, and the bytes of one block of it.
//
// Pure functions over plain structs; core/engine/capacity.h and core/model/kv_groups.h build
// on them.
//
//   bits/token  = layers x heads x (bits(K vector) + bits(V vector))        (K and V)
//               = layers x bits(kv_lora_rank + qk_rope_head_dim)             (MLA latent)
//   bits(vector of E elements) = E x bits(dtype)
//     + with quant_group G > 0: an fp16 scale and an fp16 zero point per G elements of each
//       head vector (groups never span heads): ceil(E / G) x 32 bits.
// Sizes are counted in bits so that int4 stays exact; a block's K and V tensors of one layer
// are each rounded up to whole bytes (each is its own allocation).
#pragma once

#include <cstdint>

#include "core/model/dtype.h"
#include "core/model/kv_layout.h"
#include "core/model/model_spec.h"

namespace kvsim {

// How the KV cache is stored.
struct KvStorage {
  DType dtype = DType::kFp16;  // element type of cached K and V
  uint32_t quant_group = 0;    // elements per fp16 scale + zero group; 0 = no group scales
};

// What one device caches per token: `num_tensors` tensors (K and V, or the MLA latent) per
// layer, each `heads` vectors of `vector_elements` elements (V: `v_vector_elements`).
struct KvShape {
  uint32_t num_layers = 0;
  uint32_t num_tensors = 2;        // 2 (K, V) or 1 (MLA latent)
  uint32_t heads = 0;              // KV heads on this device (1 for MLA)
  uint32_t vector_elements = 0;    // head_dim, or kv_lora_rank + qk_rope_head_dim for MLA
  uint32_t v_vector_elements = 0;  // V head vector where it differs from K's; 0 = the same

  // Elements of one head vector of tensor `tensor` (0 = K or the latent, 1 = V).
  uint32_t tensor_elements(uint32_t tensor) const {
    return tensor == 1 && v_vector_elements > 0 ? v_vector_elements : vector_elements;
  }
};

// The cached shape of the model's attention layers on one of `tp` tensor-parallel devices:
// KV heads are split over the devices (a device keeps at least one; with tp > kv_heads heads
// are replicated, as vLLM does); the MLA latent is replicated on every device. tp == 1 gives
// the whole model. For a uniform model that is every layer; for a hybrid model it counts its
// attention layers (full, sliding window, mla) with the model's KV heads and head_dim — the
// per-group sizes come from kv_shape(LayerGroup) and core/model/kv_groups.h.
KvShape kv_shape(const ModelSpec& model, uint32_t tp);

// The shape of one attention group (full, sliding_window, mla) on one of `tp` devices.
KvShape kv_shape(const LayerGroup& group, uint32_t tp);

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

}  // namespace kvsim
