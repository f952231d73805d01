// ConfigNode: a parsed YAML document as a plain tree that remembers where each value stood.
//
// kvsim reads every configuration (presets, scenarios, sweeps) through this tree so that
// yaml-cpp stays inside one file (core/yaml_reader.cc) and every error can name
// `file:line:column`. Maps keep their keys in file order; a key appears at most once.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/status.h"

namespace kvsim {

// Where a value stood in its source, 1-based. An empty file means "not from a file"
// (a default, a --set override given on the command line, ...).
struct SourceMark {
  std::string file;
  int line = 0;
  int column = 0;

  // "file:line:column", or "file" / "<input>" when line is unknown.
  std::string to_string() const;
};

// "mark: message" as a Status of the given kind.
Status error_at(const SourceMark& mark, const std::string& message);

class ConfigNode {
 public:
  enum class Kind { kNull, kScalar, kSequence, kMap };
  using Entry = std::pair<std::string, ConfigNode>;

  ConfigNode() = default;  // null
  static ConfigNode null(SourceMark mark = {});
  static ConfigNode scalar(std::string value, SourceMark mark = {});
  static ConfigNode sequence(SourceMark mark = {});
  static ConfigNode map(SourceMark mark = {});

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_scalar() const { return kind_ == Kind::kScalar; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  bool is_map() const { return kind_ == Kind::kMap; }
  const SourceMark& mark() const { return mark_; }

  // Scalar text; checked: the node is a scalar.
  const std::string& text() const;
  // Sequence items; checked: the node is a sequence.
  const std::vector<ConfigNode>& items() const;
  // Map entries in file order; checked: the node is a map.
  const std::vector<Entry>& entries() const;

  // The value under `key` in a map, or nullptr (also when this is not a map).
  const ConfigNode* find(std::string_view key) const;
  ConfigNode* find(std::string_view key);
  // The value at a dotted path ("cache.block_size"), or nullptr.
  const ConfigNode* find_path(std::string_view dotted) const;

  // Map: sets `key` to `value`, replacing an existing entry in place.
  void set(std::string key, ConfigNode value);
  // Map: removes `key`; returns whether it was there.
  bool erase(std::string_view key);
  // Sequence: appends an item.
  void push_back(ConfigNode value);
  // Sets the value at a dotted path, creating maps on the way (null nodes become maps).
  // Fails when the path runs through a scalar or a sequence.
  Status set_path(std::string_view dotted, ConfigNode value);

  // Structural equality (kind, text, items, entries in order); marks are ignored.
  bool operator==(const ConfigNode& other) const;

 private:
  Kind kind_ = Kind::kNull;
  SourceMark mark_;
  std::string text_;
  std::vector<ConfigNode> items_;
  std::vector<Entry> entries_;
};

}  // namespace kvsim
