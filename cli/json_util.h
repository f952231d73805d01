// Small helpers for JSON output: optionals become null, bit counts become exact bytes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "core/kv_groups.h"

namespace kvsim::cli {

inline nlohmann::json json_or_null(const std::optional<uint64_t>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// Bytes from bits: an integer when whole, else a number with the fraction (int4 halves).
inline nlohmann::json json_bytes_from_bits(uint64_t bits) {
  if (bits % 8 == 0) return nlohmann::json(bits / 8);
  return nlohmann::json(static_cast<double>(bits) / 8.0);
}

// Every layer group: kind, layers, window, KV bytes per token (whole model and per device),
// a recurrent group's state bytes per sequence.
inline nlohmann::json layer_groups_json(const std::vector<LayerGroupBytes>& groups) {
  nlohmann::json out = nlohmann::json::array();
  for (const LayerGroupBytes& b : groups) {
    nlohmann::json group;
    group["kind"] = layer_kind_name(b.group.kind);
    group["num_layers"] = b.group.num_layers;
    if (b.group.kind == LayerKind::kSlidingWindow) group["window_tokens"] = b.group.window_tokens;
    group["kv_bytes_per_token"] = json_bytes_from_bits(b.bits_per_token);
    group["kv_bytes_per_token_per_device"] = json_bytes_from_bits(b.bits_per_token_per_device);
    group["state_bytes_per_seq"] =
        json_bytes_from_bits(b.state_bits_per_layer * b.group.num_layers);
    group["state_bytes_per_seq_per_device"] =
        json_bytes_from_bits(b.state_bits_per_layer_per_device * b.group.num_layers);
    out.push_back(group);
  }
  return out;
}

// vLLM's KV cache groups of a hybrid plan (core/kv_groups.h).
inline nlohmann::json kv_cache_plan_json(const KvCachePlan& plan) {
  nlohmann::json out;
  out["num_groups"] = plan.groups.size();
  out["layers_per_group"] = plan.layers_per_group;
  out["num_padding_layers"] = plan.num_padding_layers;
  out["page_bytes"] = plan.page_bytes;
  out["bytes_per_block"] = plan.bytes_per_block();
  out["uniform_type"] = plan.uniform_type;
  nlohmann::json specs = nlohmann::json::array();
  for (size_t i = 0; i < plan.specs.size(); ++i) {
    const KvCacheSpec& s = plan.specs[i];
    size_t groups = 0;
    for (const KvCacheGroup& g : plan.groups) groups += g.spec == i ? 1 : 0;
    specs.push_back({{"kind", layer_kind_name(s.kind)},
                     {"num_layers", s.num_layers},
                     {"num_groups", groups},
                     {"window_tokens", s.window_tokens},
                     {"block_size", s.block_size},
                     {"real_page_bytes", s.real_page_bytes},
                     {"page_bytes", s.page_bytes}});
  }
  out["specs"] = specs;
  return out;
}

}  // namespace kvsim::cli
