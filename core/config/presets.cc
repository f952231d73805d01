#include "core/config/presets.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/base/enum_names.h"
#include "core/base/names.h"
#include "core/config/embedded_presets.h"
#include "core/config/yaml_io.h"

namespace kvsim {
namespace {

// Where the embedded presets of a kind live (presets/<dir>/<name>.yaml).
constexpr EnumNames<PresetKind, 5> kDirs{{{
    {PresetKind::kModel, "models"},
    {PresetKind::kDevice, "devices"},
    {PresetKind::kScenario, "scenarios"},
    {PresetKind::kSweep, "sweeps"},
    {PresetKind::kLink, "links"},
}}};
constexpr EnumNames<PresetKind, 5> kKindNames{{{
    {PresetKind::kModel, "model"},
    {PresetKind::kDevice, "device"},
    {PresetKind::kScenario, "scenario"},
    {PresetKind::kSweep, "sweep"},
    {PresetKind::kLink, "link"},
}}};

}  // namespace

std::string_view preset_dir(PresetKind kind) { return kDirs.name(kind); }

std::string_view preset_kind_name(PresetKind kind) { return kKindNames.name(kind); }

std::vector<std::string> preset_names(PresetKind kind) {
  std::vector<std::string> names;
  for (size_t i = 0; i < kNumEmbeddedPresets; ++i) {
    if (kEmbeddedPresets[i].dir == preset_dir(kind)) names.emplace_back(kEmbeddedPresets[i].name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

const std::string_view* embedded_preset_text(PresetKind kind, std::string_view name) {
  for (size_t i = 0; i < kNumEmbeddedPresets; ++i) {
    const EmbeddedPreset& preset = kEmbeddedPresets[i];
    if (preset.dir == preset_dir(kind) && preset.name == name) return &preset.text;
  }
  return nullptr;
}

bool looks_like_path(std::string_view name_or_path) {
  const auto ends_with = [&](std::string_view suffix) {
    return name_or_path.size() >= suffix.size() &&
           name_or_path.substr(name_or_path.size() - suffix.size()) == suffix;
  };
  return name_or_path.find('/') != std::string_view::npos || ends_with(".yaml") ||
         ends_with(".yml") || ends_with(".json");
}

std::string preset_stem(std::string_view name_or_path) {
  if (!looks_like_path(name_or_path)) return std::string(name_or_path);
  const size_t slash = name_or_path.find_last_of('/');
  std::string_view stem =
      slash == std::string_view::npos ? name_or_path : name_or_path.substr(slash + 1);
  const size_t dot = stem.find_last_of('.');
  if (dot != std::string_view::npos && dot > 0) stem = stem.substr(0, dot);
  return std::string(stem);
}

StatusOr<ConfigNode> load_preset_node(PresetKind kind, std::string_view name_or_path) {
  if (looks_like_path(name_or_path)) return read_yaml_file(std::string(name_or_path));
  const std::string_view* text = embedded_preset_text(kind, name_or_path);
  if (text == nullptr) {
    return Status::not_found(unknown_name_message(fmt::format("{} preset", preset_kind_name(kind)),
                                                  name_or_path, preset_names(kind)) +
                             " (or give a path to a .yaml file)");
  }
  const std::string virtual_path =
      fmt::format("presets/{}/{}.yaml", preset_dir(kind), name_or_path);
  return parse_yaml(*text, virtual_path);
}

bool is_hf_config_path(std::string_view path) {
  return path.size() >= 5 && path.substr(path.size() - 5) == ".json";
}

}  // namespace kvsim
