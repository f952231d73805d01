// Typed specs out of configuration trees: DeviceSpec (and, through core/model_config.h,
// ModelSpec) from their YAML maps.
// Every field is range-checked (no zero, negative or absurd value passes) and unknown
// fields are rejected with the list of valid ones; errors name file:line:column.
#pragma once

#include <string>

#include "core/config_node.h"
#include "core/device_spec.h"
#include "core/model_config.h"
#include "core/status.h"

namespace kvsim {

// `default_name` is used when the map has no `name:` field (the preset's file stem).
// model_from_config lives in core/model_config.h.
StatusOr<DeviceSpec> device_from_config(const ConfigNode& node, const std::string& default_name);

}  // namespace kvsim
