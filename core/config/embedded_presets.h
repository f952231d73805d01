// The preset files compiled into the binary (generated from presets/ by
// cmake/EmbedPresets.cmake). Read them through core/config/presets.h.
#pragma once

#include <cstddef>
#include <string_view>

namespace kvsim {

struct EmbeddedPreset {
  std::string_view dir;   // "models", "devices", "scenarios", "sweeps"
  std::string_view name;  // file stem
  std::string_view text;  // the YAML file's contents
};

extern const EmbeddedPreset kEmbeddedPresets[];
extern const size_t kNumEmbeddedPresets;

}  // namespace kvsim
