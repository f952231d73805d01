#include "simulator/sweep/sweep_spec.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "core/base/enum_names.h"
#include "core/config/config_reader.h"
#include "core/config/presets.h"
#include "core/config/yaml_io.h"

namespace kvsim::sim {
namespace {

using KeyLists = std::vector<std::pair<std::string, std::vector<ConfigNode>>>;

constexpr EnumNames<SweepKind, 2> kKindNames{{{
    {SweepKind::kSimulate, "simulate"},
    {SweepKind::kPpl, "ppl"},
}}};

StatusOr<SweepKind> parse_kind(std::string_view text) {
  return kKindNames.parse(text, "sweep kind");
}

// A map of dotted keys to non-empty lists, in file order.
Status read_key_lists(const ConfigNode& map, const std::string& what, KeyLists* out) {
  if (!map.is_map()) return error_at(map.mark(), what + " must map dotted keys to lists");
  for (const auto& [key, list] : map.entries()) {
    if (!list.is_sequence() || list.items().empty()) {
      return error_at(list.mark(), what + "." + key + " must be a non-empty list of values");
    }
    out->emplace_back(key, list.items());
  }
  return Status::ok();
}

Status read_zip(const ConfigNode& zip, SweepSpec* spec) {
  if (!zip.is_sequence()) return error_at(zip.mark(), "zip must be a list of groups");
  for (const ConfigNode& group : zip.items()) {
    KeyLists lists;
    KVSIM_RETURN_IF_ERROR(read_key_lists(group, "zip group", &lists));
    for (const auto& [key, values] : lists) {
      if (values.size() != lists.front().second.size()) {
        return error_at(
            group.find(key)->mark(),
            fmt::format("zip lists vary together and must have equal lengths: "
                        "'{}' has {}, '{}' has {}",
                        key, values.size(), lists.front().first, lists.front().second.size()));
      }
    }
    spec->zip.push_back(std::move(lists));
  }
  return Status::ok();
}

Status check_unique_keys(const SweepSpec& spec, const ConfigNode& node) {
  for (size_t i = 0; i < spec.keys.size(); ++i) {
    for (size_t j = i + 1; j < spec.keys.size(); ++j) {
      if (spec.keys[i] == spec.keys[j]) {
        return error_at(node.mark(), "key '" + spec.keys[i] + "' appears twice in grid/zip");
      }
    }
  }
  return Status::ok();
}

// `set:` overrides applied to the base tree for every point.
Status apply_set(const ConfigNode& set, ConfigNode* base) {
  if (!set.is_map()) return error_at(set.mark(), "set must map dotted keys to values");
  for (const auto& [key, value] : set.entries()) {
    Status applied = base->set_path(key, value);
    if (!applied.is_ok()) return error_at(value.mark(), applied.message());
  }
  return Status::ok();
}

StatusOr<ConfigNode> load_base_from_presets(SweepKind kind, const std::string& name_or_path) {
  if (kind == SweepKind::kPpl && !looks_like_path(name_or_path)) {
    return Status::invalid_argument("a ppl sweep's base must be an inline map or a YAML path");
  }
  return load_preset_node(PresetKind::kScenario, name_or_path);
}

void append_flow(const ConfigNode& node, std::string* out) {
  switch (node.kind()) {
    case ConfigNode::Kind::kNull:
      *out += "null";
      return;
    case ConfigNode::Kind::kScalar:
      *out += node.text();
      return;
    case ConfigNode::Kind::kSequence:
      *out += "[";
      for (size_t i = 0; i < node.items().size(); ++i) {
        if (i > 0) *out += ", ";
        append_flow(node.items()[i], out);
      }
      *out += "]";
      return;
    case ConfigNode::Kind::kMap:
      *out += "{";
      for (size_t i = 0; i < node.entries().size(); ++i) {
        if (i > 0) *out += ", ";
        *out += node.entries()[i].first + ": ";
        append_flow(node.entries()[i].second, out);
      }
      *out += "}";
      return;
  }
}

}  // namespace

std::string_view sweep_kind_name(SweepKind kind) { return kKindNames.name(kind); }

std::string value_text(const ConfigNode& value) {
  std::string out;
  append_flow(value, &out);
  return out;
}

std::string content_hash(const std::string& text) {
  uint64_t hash = 14695981039346656037ull;  // FNV-1a 64
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

StatusOr<SweepSpec> sweep_from_config(const ConfigNode& node, const std::string& source,
                                      BaseLoader load_base) {
  SweepSpec spec;
  spec.source = source;
  ConfigReader r(node, "sweep");
  r.optional("description", &spec.description);
  r.optional_with("kind", &spec.kind, parse_into<parse_kind>);
  r.optional("output", &spec.output);
  const ConfigNode* base = r.child("base");
  const ConfigNode* set = r.child("set");
  const ConfigNode* grid = r.child("grid");
  const ConfigNode* zip = r.child("zip");
  const ConfigNode* slo = r.child("slo");
  KVSIM_RETURN_IF_ERROR(r.finish());
  if (base == nullptr) return error_at(node.mark(), "missing required field 'base' in sweep");
  const std::filesystem::path sweep_dir =
      looks_like_path(source) ? std::filesystem::path(source).parent_path() : "";
  spec.base_dir = sweep_dir.string();
  if (base->is_map()) {
    spec.base = *base;
  } else if (base->is_scalar()) {
    std::string reference = base->text();
    if (looks_like_path(reference) && std::filesystem::path(reference).is_relative()) {
      reference = (sweep_dir / reference).string();
    }
    if (looks_like_path(reference)) {
      spec.base_dir = std::filesystem::path(reference).parent_path().string();
    }
    KVSIM_ASSIGN_OR_RETURN(spec.base, load_base(spec.kind, reference));
  } else {
    return error_at(base->mark(), "base must be a preset name, a YAML path or a map");
  }
  if (set != nullptr) KVSIM_RETURN_IF_ERROR(apply_set(*set, &spec.base));
  if (grid != nullptr) KVSIM_RETURN_IF_ERROR(read_key_lists(*grid, "grid", &spec.grid));
  if (zip != nullptr) KVSIM_RETURN_IF_ERROR(read_zip(*zip, &spec));
  if (slo != nullptr) spec.slo = *slo;
  for (const auto& [key, values] : spec.grid) spec.keys.push_back(key);
  for (const auto& group : spec.zip) {
    for (const auto& [key, values] : group) spec.keys.push_back(key);
  }
  KVSIM_RETURN_IF_ERROR(check_unique_keys(spec, node));
  return spec;
}

StatusOr<SweepSpec> load_sweep(const std::string& name_or_path) {
  KVSIM_ASSIGN_OR_RETURN(ConfigNode node, load_preset_node(PresetKind::kSweep, name_or_path));
  const std::string source =
      looks_like_path(name_or_path) ? name_or_path : "presets/sweeps/" + name_or_path + ".yaml";
  return sweep_from_config(node, source, load_base_from_presets);
}

StatusOr<SweepSpec> sweep_from_yaml(std::string_view text, const std::string& source) {
  KVSIM_ASSIGN_OR_RETURN(ConfigNode node, parse_yaml(text, source));
  return sweep_from_config(node, source, load_base_from_presets);
}

StatusOr<std::vector<SweepPoint>> expand_sweep(const SweepSpec& spec) {
  // Axes: each grid key alone, then each zip group; an odometer over their lengths.
  std::vector<KeyLists> axes;
  for (const auto& entry : spec.grid) axes.push_back({entry});
  for (const auto& group : spec.zip) axes.push_back(group);
  std::vector<size_t> digit(axes.size(), 0);
  std::vector<SweepPoint> points;
  while (true) {
    SweepPoint point;
    point.index = points.size();
    point.config = spec.base;
    for (size_t a = 0; a < axes.size(); ++a) {
      for (const auto& [key, values] : axes[a]) {
        const ConfigNode& value = values[digit[a]];
        Status set = point.config.set_path(key, value);
        if (!set.is_ok()) return error_at(value.mark(), set.message());
        point.values.push_back({key, value, value_text(value)});
        point.name += (point.name.empty() ? "" : ",") + key + "=" + value_text(value);
      }
    }
    if (point.name.empty()) point.name = "base";
    point.id = content_hash(std::string(sweep_kind_name(spec.kind)) + "\n" + to_yaml(point.config));
    points.push_back(std::move(point));
    size_t a = axes.size();
    while (a > 0 && ++digit[a - 1] == axes[a - 1].front().second.size()) digit[--a] = 0;
    if (a == 0) break;
  }
  for (size_t i = 0; i < points.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (points[i].id == points[j].id) {
        return Status::invalid_argument(
            fmt::format("{}: points '{}' and '{}' resolve to the same configuration", spec.source,
                        points[j].name, points[i].name));
      }
    }
  }
  return points;
}

std::vector<SweepPoint> select_shard(const std::vector<SweepPoint>& points, size_t index,
                                     size_t count) {
  std::vector<SweepPoint> shard;
  for (const SweepPoint& point : points) {
    if (point.index % count == index) shard.push_back(point);
  }
  return shard;
}

}  // namespace kvsim::sim
