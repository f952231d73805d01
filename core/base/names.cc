#include "core/base/names.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace kvsim {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string nearest_name(std::string_view name, const std::vector<std::string>& valid) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, name.size() / 2) + 1;
  for (const std::string& candidate : valid) {
    const size_t distance = edit_distance(name, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string unknown_name_message(std::string_view kind, std::string_view name,
                                 const std::vector<std::string>& valid) {
  const std::string nearest = nearest_name(name, valid);
  const std::string suggestion =
      nearest.empty() ? "" : fmt::format(" (did you mean '{}'?)", nearest);
  return fmt::format("unknown {} '{}'{}; valid: {}", kind, name, suggestion,
                     fmt::join(valid, ", "));
}

}  // namespace kvsim
