// YAML text <-> ConfigNode. The only place in kvsim that uses yaml-cpp.
//
// Parsing never throws and never crashes on any input: syntax errors, duplicate keys,
// documents nested deeper than kMaxYamlDepth and alias bombs (more than kMaxYamlNodes nodes
// once aliases are expanded) all come back as a Status naming file:line:column.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/config/config_node.h"

namespace kvsim {

inline constexpr int kMaxYamlDepth = 64;
inline constexpr size_t kMaxYamlNodes = 1'000'000;

// Parses one YAML document. `file_name` is used in marks and messages.
// An empty document is a null node.
StatusOr<ConfigNode> parse_yaml(std::string_view text, const std::string& file_name);

// Reads and parses a file.
StatusOr<ConfigNode> read_yaml_file(const std::string& path);

// Block-style YAML for a tree (for saving scenarios and sweep points). Round-trips:
// parse_yaml(to_yaml(n)) == n for every tree parse_yaml can return.
std::string to_yaml(const ConfigNode& node);

}  // namespace kvsim
