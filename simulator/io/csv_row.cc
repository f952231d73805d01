#include "simulator/io/csv_row.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace kvsim::sim {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

bool split_csv_line(std::string_view line, std::vector<std::string_view>* fields,
                    std::string* scratch) {
  fields->clear();
  scratch->clear();
  // Quoted fields with "" escapes are unescaped into scratch; reserve so views stay valid.
  scratch->reserve(line.size());
  size_t pos = 0;
  for (;;) {
    size_t start = pos;
    while (start < line.size() && line[start] == ' ') ++start;
    if (start < line.size() && line[start] == '"') {
      const size_t out_begin = scratch->size();
      size_t i = start + 1;
      for (;; ++i) {
        if (i >= line.size()) return false;
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            scratch->push_back('"');
            ++i;
            continue;
          }
          break;
        }
        scratch->push_back(line[i]);
      }
      fields->push_back(std::string_view(scratch->data() + out_begin, scratch->size() - out_begin));
      const size_t comma = line.find(',', i + 1);
      if (comma == std::string_view::npos) return true;
      pos = comma + 1;
      continue;
    }
    const size_t comma = line.find(',', pos);
    if (comma == std::string_view::npos) {
      fields->push_back(trim(line.substr(pos)));
      return true;
    }
    fields->push_back(trim(line.substr(pos, comma - pos)));
    pos = comma + 1;
  }
}

CsvHeader::CsvHeader(const std::vector<std::string_view>& names) {
  for (std::string_view name : names) names_.emplace_back(name);
  // A UTF-8 byte-order mark belongs to the file, not to the first column's name.
  if (!names_.empty() && names_[0].rfind("\xEF\xBB\xBF", 0) == 0) names_[0].erase(0, 3);
}

int CsvHeader::find(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

StatusOr<int> CsvHeader::require(std::string_view name, const std::string& where) const {
  const int at = find(name);
  if (at >= 0) return at;
  return Status::parse_error(fmt::format("{}: missing column '{}' in the header; found: {}", where,
                                         name, fmt::join(names_, ", ")));
}

Status parse_count_field(std::string_view text, std::string_view column, uint64_t* out) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc() && end == text.data() + text.size() && !text.empty()) {
    *out = value;
    return Status::ok();
  }
  double number = 0;
  const auto [end2, error2] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error2 == std::errc() && end2 == text.data() + text.size() && !text.empty() && number >= 0 &&
      number == std::floor(number) && number < 9.0e15) {
    *out = static_cast<uint64_t>(number);
    return Status::ok();
  }
  return Status::parse_error(
      fmt::format("column '{}': expected a whole number >= 0, got '{}'", column, text));
}

Status parse_number_field(std::string_view text, std::string_view column, double* out) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc() && end == text.data() + text.size() && !text.empty() &&
      std::isfinite(value)) {
    *out = value;
    return Status::ok();
  }
  return Status::parse_error(fmt::format("column '{}': expected a number, got '{}'", column, text));
}

}  // namespace kvsim::sim
