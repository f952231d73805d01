// EnumNames: the YAML / CLI names of a small enum, both ways, from one table.
//
//   constexpr EnumNames<TraceFormat, 2> kNames{{{{TraceFormat::kAuto, "auto"}, ...}}};
//   kNames.name(TraceFormat::kAuto) == "auto";  kNames.parse("csv", "trace format")
// An unknown name is an error that lists the valid ones and the nearest (core/names.h).
// parse_into() adapts parse() to ConfigReader::optional_with.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/names.h"
#include "core/status.h"

namespace kvsim::sim {

template <typename Enum, size_t N>
struct EnumNames {
  std::array<std::pair<Enum, std::string_view>, N> entries;

  std::string_view name(Enum value) const {
    for (const auto& [known, text] : entries) {
      if (known == value) return text;
    }
    return "?";
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : entries) out.emplace_back(entry.second);
    return out;
  }
  StatusOr<Enum> parse(std::string_view text, std::string_view kind) const {
    for (const auto& [value, known] : entries) {
      if (known == text) return value;
    }
    return Status::invalid_argument(unknown_name_message(kind, text, names()));
  }
};

// A StatusOr-returning parser as ConfigReader::optional_with wants it: Status f(text, T*).
template <auto kParse>
Status parse_into(std::string_view text,
                  std::remove_cvref_t<decltype(kParse(std::string_view()).value())>* out) {
  KVSIM_ASSIGN_OR_RETURN(*out, kParse(text));
  return Status::ok();
}

}  // namespace kvsim::sim
