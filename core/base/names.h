// Messages for unknown names: every lookup by name (presets, dtypes, policies, formats) says
// what was asked for, lists the valid names and suggests the nearest one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kvsim {

// Levenshtein edit distance between two strings (case-sensitive).
size_t edit_distance(std::string_view a, std::string_view b);

// The valid name nearest to `name`, or "" when none is close (distance > max(2, |name|/2)).
std::string nearest_name(std::string_view name, const std::vector<std::string>& valid);

// "unknown <kind> 'name' (did you mean 'x'?); valid: a, b, c".
std::string unknown_name_message(std::string_view kind, std::string_view name,
                                 const std::vector<std::string>& valid);

}  // namespace kvsim
