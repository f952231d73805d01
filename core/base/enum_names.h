// EnumNames: the YAML / CLI names of a small enum, both ways, from one table. Every enum that
// has names (dtypes, attention kinds, KV layouts, trace formats, sweep kinds...) keeps them in
// one of these, so that a name is written once and an unknown one lists the valid ones.
//
//   constexpr EnumNames<TraceFormat, 2> kNames{{{{TraceFormat::kAuto, "auto"}, ...}}};
//   kNames.name(TraceFormat::kAuto) == "auto";  kNames.parse("csv", "trace format")
//
// The table lists every value of the enum (name() of a value not in it is a bug: a failed
// KVSIM_CHECK), in the order valid names are listed in messages. An unknown name is an error
// that lists the valid ones and the nearest (core/base/names.h). A table may also hold a subset of
// an enum's values, for an input that accepts only those; then only parse() and names() apply.
// parse_into() adapts a StatusOr-returning parser to ConfigReader::optional_with.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/base/check.h"
#include "core/base/names.h"
#include "core/base/status.h"

namespace kvsim {

template <typename Enum, size_t N>
struct EnumNames {
  std::array<std::pair<Enum, std::string_view>, N> entries;

  std::string_view name(Enum value) const {
    for (const auto& [known, text] : entries) {
      if (known == value) return text;
    }
    KVSIM_CHECK(false, "an enum value missing from its name table");
  }
  // The values in table order.
  constexpr std::array<Enum, N> values() const {
    std::array<Enum, N> out{};
    for (size_t i = 0; i < N; ++i) out[i] = entries[i].first;
    return out;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : entries) out.emplace_back(entry.second);
    return out;
  }
  // `kind` names the input in the message: "unknown <kind> 'text' ...; valid: ...".
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

}  // namespace kvsim
