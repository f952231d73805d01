// The JSON of a capacity result: what `kvsim capacity --json` prints and `kvsim.capacity()`
// returns (python/), one object per model x device. Bit counts become exact bytes (an integer
// when whole, else a fraction: int4 halves); unknown amounts (no device) are null.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/engine/capacity.h"
#include "core/engine/capacity_plan.h"
#include "core/model/device_spec.h"
#include "core/model/kv_groups.h"
#include "core/model/model_spec.h"
#include "core/report/capacity_report.h"

namespace kvsim {

// An optional as JSON: the value, or null.
nlohmann::json json_or_null(const std::optional<uint64_t>& value);

// Bytes from bits: an integer when whole, else a number with the fraction.
nlohmann::json json_bytes_from_bits(uint64_t bits);

// Every layer group: kind, layers, window, KV bytes per token (whole model and per device),
// a recurrent group's state bytes per sequence.
nlohmann::json layer_groups_json(const std::vector<LayerGroupBytes>& groups);

// vLLM's KV cache groups of a hybrid plan (core/model/kv_groups.h).
nlohmann::json kv_cache_plan_json(const KvCachePlan& plan);

// One plan (core/engine/capacity_plan.h): the query, the engine's budget term by term (null without
// an engine) and the blocks; `device` null = no device (the budget fields are null).
nlohmann::json capacity_to_json(const ModelSpec& model, const DeviceSpec* device,
                                const CapacityPlan& plan);

// `kvsim capacity --json` (and kvsim.capacity()): one row's object, or an array of them.
nlohmann::json capacity_rows_json(const ModelSpec& model, const std::vector<CapacityRow>& rows);

// The devices of a device option: a preset name or YAML path, a comma-separated list of them,
// or "all" (every device preset); "" = none.
StatusOr<std::vector<DeviceSpec>> load_device_list(const std::string& spec);

}  // namespace kvsim
