#include "core/report/layout_json.h"

#include <fmt/format.h>

#include "core/model/kv_groups.h"
#include "core/model/kv_shape.h"
#include "core/report/capacity_json.h"

namespace kvsim {

BlockLayout model_block_layout(const ModelSpec& model, const DeviceSpec* device, DType dtype,
                               uint32_t block_size) {
  const uint32_t resolved = block_size > 0      ? block_size
                            : device != nullptr ? device->default_block_size
                                                : kBlockSizeWithoutDevice;
  return block_layout(kv_shape(model, 1), resolved, nz_fractal_width(device, dtype));
}

Status check_layout_pick(const LayoutPick& pick, const BlockLayout& layout) {
  if (pick.head >= layout.kv_heads || pick.dim >= layout.head_dim) {
    return Status::invalid_argument(
        fmt::format("--locate: head must be < {} and dim < {}", layout.kv_heads, layout.head_dim));
  }
  return Status::ok();
}

nlohmann::json layout_to_json(const ModelSpec& model, DType dtype, const BlockLayout& layout,
                              const std::optional<LayoutPick>& locate) {
  const KvShape shape = kv_shape(model, 1);
  const double bytes = dtype_bits(dtype) / 8.0;
  const uint64_t per_block_tensors = uint64_t{shape.num_layers} * shape.num_tensors;
  nlohmann::json out;
  out["dtype"] = dtype_name(dtype);
  out["nd_block_shape"] = layout.nd_shape();
  out["nz_block_shape"] = layout.nz_shape();
  out["nz_fractal_width"] = layout.nz_width;
  out["nd_block_bytes"] = layout.nd_elements() * bytes;
  out["nz_block_bytes"] = layout.nz_elements() * bytes;
  out["nd_block_bytes_all_layers_kv"] = layout.nd_elements() * bytes * per_block_tensors;
  out["nz_block_bytes_all_layers_kv"] = layout.nz_elements() * bytes * per_block_tensors;
  out["nz_padding_fraction"] = layout.nz_padding_fraction();
  if (locate) {
    const uint32_t slot = static_cast<uint32_t>(locate->token % layout.block_size);
    out["block"] = locate->token / layout.block_size;
    out["slot"] = slot;
    out["nd_offset"] = layout.nd_offset(slot, locate->head, locate->dim);
    out["nz_offset"] = layout.nz_offset(slot, locate->head, locate->dim);
  }
  auto groups = layer_group_bytes(model, KvStorage{dtype, 0}, 1);
  if (groups.is_ok()) out["layer_groups"] = layer_groups_json(*groups);
  return out;
}

}  // namespace kvsim
