// The preset registry: YAML presets embedded in the binary at build time (presets/*), found
// by name, or any YAML file given by path.
//
// A name_or_path that contains '/' or ends in ".yaml"/".yml"/".json" is read from disk;
// anything else is looked up among the embedded presets, and an unknown name lists the valid
// ones with the nearest match. Embedded presets report their source as
// "presets/<kind>/<name>.yaml". Typed specs come from core/model/load_spec.h (load_model,
// load_device), which reads a model path ending in ".json" through the Hugging Face importer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/config/config_node.h"

namespace kvsim {

enum class PresetKind { kModel, kDevice, kScenario, kSweep, kLink };

// "models", "devices", "scenarios", "sweeps", "links": the folder under presets/.
std::string_view preset_dir(PresetKind kind);
// "model", "device", "scenario", "sweep", "link".
std::string_view preset_kind_name(PresetKind kind);

// Names of the embedded presets of a kind, sorted.
std::vector<std::string> preset_names(PresetKind kind);

// The embedded YAML text of a preset, or nullptr.
const std::string_view* embedded_preset_text(PresetKind kind, std::string_view name);

// True when `name_or_path` names a file rather than an embedded preset.
bool looks_like_path(std::string_view name_or_path);

// The parsed tree of a preset (by name) or file (by path).
StatusOr<ConfigNode> load_preset_node(PresetKind kind, std::string_view name_or_path);

// The name a preset gets from its reference: the name itself, or a file's stem.
std::string preset_stem(std::string_view name_or_path);

// True for a path ending in ".json" (a Hugging Face config.json).
bool is_hf_config_path(std::string_view path);

}  // namespace kvsim
