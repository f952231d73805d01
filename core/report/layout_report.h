// Human-readable layout answers: one layer's K (or V) block in the ND and NZ layouts (shapes,
// sizes, NZ padding) and, optionally, where one (token, head, dim) element lands in each, the
// offset formulas of core/model/kv_layout.h with the numbers substituted. `kvsim layout` prints
// this text; the GUI shows the same text beside its drawing of the block. It ends with the bytes
// per token of every layer group (core/report/group_report.h); for a hybrid model the block shown
// is one attention layer's with the model's KV heads and head_dim.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/model/dtype.h"
#include "core/model/kv_layout.h"
#include "core/model/model_spec.h"

namespace kvsim {

// One element of a sequence's KV cache: token position, KV head, element of the head vector.
struct LayoutPick {
  uint64_t token = 0;
  uint32_t head = 0;  // < kv_heads
  uint32_t dim = 0;   // < head_dim
};

// Precondition: pick->head < layout.kv_heads and pick->dim < layout.head_dim.
std::string layout_report(const ModelSpec& model, DType dtype, const BlockLayout& layout,
                          const std::optional<LayoutPick>& pick);

}  // namespace kvsim
