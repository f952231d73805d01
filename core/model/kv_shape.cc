#include "core/model/kv_shape.h"

#include <algorithm>
#include <vector>

#include "core/base/checked_math.h"
#include "core/base/units.h"

namespace kvsim {
namespace {

constexpr uint64_t kScaleZeroBits = 32;  // one fp16 scale + one fp16 zero point per group

// Bits of one head vector of `elements` elements, group scales included.
uint64_t vector_bits(uint64_t elements, const KvStorage& storage) {
  uint64_t bits = elements * dtype_bits(storage.dtype);
  if (storage.quant_group > 0) bits += ceil_div(elements, storage.quant_group) * kScaleZeroBits;
  return bits;
}

uint64_t scale_bits_per_vector(uint64_t elements, const KvStorage& storage) {
  if (storage.quant_group == 0) return 0;
  return ceil_div(elements, storage.quant_group) * kScaleZeroBits;
}

bool is_attention(LayerKind kind) {
  return kind == LayerKind::kFull || kind == LayerKind::kSlidingWindow || kind == LayerKind::kMla;
}

}  // namespace

KvShape kv_shape(const LayerGroup& group, uint32_t tp) {
  KvShape shape;
  shape.num_layers = group.num_layers;
  if (group.kind == LayerKind::kMla) {
    shape.num_tensors = 1;
    shape.heads = 1;
    shape.vector_elements = group.kv_lora_rank + group.qk_rope_head_dim;
    return shape;
  }
  shape.num_tensors = 2;
  shape.heads = std::max<uint32_t>(1, group.num_kv_heads / std::max<uint32_t>(1, tp));
  shape.vector_elements = group.head_dim;
  shape.v_vector_elements = group.v_head_dim == group.head_dim ? 0 : group.v_head_dim;
  return shape;
}

KvShape kv_shape(const ModelSpec& model, uint32_t tp) {
  const std::vector<LayerGroup> groups = cache_layer_groups(model);
  if (groups.size() == 1 && is_attention(groups.front().kind)) {
    return kv_shape(groups.front(), tp);
  }
  LayerGroup attention;
  for (const LayerGroup& group : model_layer_groups(model)) {
    if (is_attention(group.kind)) attention.num_layers += group.num_layers;
  }
  if (model.attention == AttentionKind::kMla) {
    attention.kind = LayerKind::kMla;
    attention.kv_lora_rank = model.kv_lora_rank;
    attention.qk_rope_head_dim = model.qk_rope_head_dim;
  } else {
    attention.num_kv_heads = model.num_kv_heads;
    attention.head_dim = model.head_dim;
  }
  return kv_shape(attention, tp);
}

uint64_t kv_bits_per_token(const KvShape& shape, const KvStorage& storage) {
  uint64_t per_layer = 0;
  for (uint32_t t = 0; t < shape.num_tensors; ++t) {
    per_layer += shape.heads * vector_bits(shape.tensor_elements(t), storage);
  }
  return uint64_t{shape.num_layers} * per_layer;
}

uint64_t kv_bytes_per_block_nd(const KvShape& shape, const KvStorage& storage,
                               uint32_t block_size) {
  // One layer's K (or V) block is its own allocation: round each up to whole bytes.
  uint64_t per_layer = 0;
  for (uint32_t t = 0; t < shape.num_tensors; ++t) {
    const uint64_t tensor_bits =
        uint64_t{block_size} * shape.heads * vector_bits(shape.tensor_elements(t), storage);
    per_layer += ceil_div(tensor_bits, kBitsPerByte);
  }
  return uint64_t{shape.num_layers} * per_layer;
}

BlockLayout block_layout(const KvShape& shape, uint32_t block_size, uint32_t nz_width) {
  BlockLayout layout;
  layout.block_size = block_size;
  layout.kv_heads = shape.heads;
  layout.head_dim = shape.vector_elements;
  layout.nz_width = nz_width;
  return layout;
}

uint64_t kv_bytes_per_block_nz(const KvShape& shape, const KvStorage& storage, uint32_t block_size,
                               uint32_t nz_width) {
  uint64_t per_layer = 0;
  for (uint32_t t = 0; t < shape.num_tensors; ++t) {
    BlockLayout layout = block_layout(shape, block_size, nz_width);
    layout.head_dim = shape.tensor_elements(t);
    const uint64_t data_bits = layout.nz_elements() * dtype_bits(storage.dtype);
    const uint64_t scale_bits =
        uint64_t{block_size} * shape.heads * scale_bits_per_vector(layout.head_dim, storage);
    per_layer += ceil_div(data_bits + scale_bits, kBitsPerByte);
  }
  return uint64_t{shape.num_layers} * per_layer;
}

}  // namespace kvsim
