#include "simulator/cost/layer_kind_costs.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/base/check.h"

namespace kvsim::sim {
namespace {

uint32_t none_layers(const ModelSpec& model) {
  uint32_t layers = 0;
  for (const LayerGroup& g : model_layer_groups(model)) {
    if (g.kind == LayerKind::kNone) layers += g.num_layers;
  }
  return layers;
}

// Adds `layers` layers of `bytes` each to a per-layer average held as (layers, average).
void add_layers(uint32_t layers, double bytes, uint32_t* count, double* average) {
  const double total = *average * *count + bytes * layers;
  *count += layers;
  *average = *count > 0 ? total / *count : 0;
}

// A hybrid model's kinds from its KV cache plan's specs (per device, after page unification).
LayerKindCosts hybrid_costs(const KvCachePlan& plan) {
  LayerKindCosts out;
  for (const KvCacheSpec& spec : plan.specs) {
    const double page = static_cast<double>(spec.real_page_bytes);
    switch (spec.kind) {
      case LayerKind::kFull:
      case LayerKind::kMla:
        add_layers(spec.num_layers, page / spec.block_size, &out.full_layers,
                   &out.full_kv_bytes_per_token_layer);
        break;
      case LayerKind::kSlidingWindow:
        add_layers(spec.num_layers, page / spec.block_size, &out.sliding_layers,
                   &out.sliding_kv_bytes_per_token_layer);
        out.window_tokens = spec.window_tokens;
        break;
      case LayerKind::kRecurrent:
        add_layers(spec.num_layers, page, &out.recurrent_layers, &out.state_bytes_per_layer);
        break;
      case LayerKind::kNone:
        break;
    }
  }
  return out;
}

}  // namespace

StatusOr<uint32_t> cost_window_tokens(const ModelSpec& model) {
  if (!is_hybrid(model)) return 0u;
  std::vector<uint32_t> windows;
  for (const LayerGroup& g : model_layer_groups(model)) {
    if (g.kind == LayerKind::kSlidingWindow &&
        std::find(windows.begin(), windows.end(), g.window_tokens) == windows.end()) {
      windows.push_back(g.window_tokens);
    }
  }
  if (windows.size() > 1) {
    return Status::invalid_argument(fmt::format(
        "model '{}' has sliding-window layers of {} different windows ({} tokens): the cost "
        "models time one window per model",
        model.name, windows.size(), fmt::join(windows, ", ")));
  }
  return windows.empty() ? 0u : windows.front();
}

LayerKindCosts layer_kind_costs(const ModelSpec& model, const CapacityResult& capacity) {
  LayerKindCosts out;
  if (capacity.hybrid) {
    out = hybrid_costs(*capacity.hybrid);
  } else {
    KVSIM_CHECK(capacity.block_size > 0, "layer kind costs need the capacity's block size");
    out.full_layers = model.num_layers - none_layers(model);
    out.full_kv_bytes_per_token_layer =
        static_cast<double>(capacity.kv_bytes_per_block) / capacity.block_size / out.full_layers;
  }
  out.none_layers = none_layers(model);
  return out;
}

}  // namespace kvsim::sim
