// Typed specs out of configuration trees: DeviceSpec (and, through core/model/model_config.h,
// ModelSpec) from their YAML maps.
// Every field is range-checked (no zero, negative or absurd value passes) and unknown
// fields are rejected with the list of valid ones; errors name file:line:column.
#pragma once

#include <string>

#include "core/base/status.h"
#include "core/config/config_node.h"
#include "core/model/device_spec.h"
#include "core/model/model_config.h"

namespace kvsim {

// `default_name` is used when the map has no `name:` field (the preset's file stem).
// model_from_config lives in core/model/model_config.h.
StatusOr<DeviceSpec> device_from_config(const ConfigNode& node, const std::string& default_name);

}  // namespace kvsim
