// load_model / load_device: a typed spec by embedded preset name or by file path, through the
// preset registry (core/config/presets.h: names, paths, "did you mean" for unknown names).
// A model path ending in ".json" is a Hugging Face config.json, read through the importer
// (core/model/hf_config.h); any other path or name is a model YAML (core/model/model_config.h).
// Devices are YAML (core/model/device_config.h).
#pragma once

#include <string_view>

#include "core/base/status.h"
#include "core/model/device_spec.h"
#include "core/model/model_spec.h"

namespace kvsim {

StatusOr<ModelSpec> load_model(std::string_view name_or_path);
StatusOr<DeviceSpec> load_device(std::string_view name_or_path);

}  // namespace kvsim
