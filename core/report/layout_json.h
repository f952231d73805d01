// One KV block in the ND and NZ layouts, as `kvsim layout --json` prints it and
// `kvsim.layout()` (python/) returns it: the block of one layer's K (or V) for a model on a
// device, its sizes and NZ padding, optionally where one (token, head, dim) element lands, and
// the bytes per token of every layer group. The text form is core/report/layout_report.h.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/base/status.h"
#include "core/model/device_spec.h"
#include "core/model/dtype.h"
#include "core/model/kv_layout.h"
#include "core/model/model_spec.h"
#include "core/report/layout_report.h"

namespace kvsim {

// Tokens per block without a device (as vLLM's default).
inline constexpr uint32_t kBlockSizeWithoutDevice = 16;

// The block a model's KV takes on a device (nullptr = none: the ND layout's fractal width).
// block_size 0 = the device's default block size (kBlockSizeWithoutDevice without a device).
BlockLayout model_block_layout(const ModelSpec& model, const DeviceSpec* device, DType dtype,
                               uint32_t block_size);

// An element the layout holds: head < kv_heads and dim < head_dim (any token).
Status check_layout_pick(const LayoutPick& pick, const BlockLayout& layout);

// Precondition: `locate` passed check_layout_pick.
nlohmann::json layout_to_json(const ModelSpec& model, DType dtype, const BlockLayout& layout,
                              const std::optional<LayoutPick>& locate);

}  // namespace kvsim
