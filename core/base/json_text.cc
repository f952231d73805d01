#include "core/base/json_text.h"

#include <fmt/format.h>

namespace kvsim {

std::string without_non_finite(std::string_view text) {
  std::string out(text);
  bool in_string = false;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    for (std::string_view token : {"-Infinity", "Infinity", "NaN"}) {
      if (out.compare(i, token.size(), token) != 0) continue;
      const std::string replacement = token.size() >= 4 ? "null" : "0";
      out.replace(i, token.size(),
                  replacement + std::string(token.size() - replacement.size(), ' '));
      break;
    }
  }
  return out;
}

std::string text_position(std::string_view text, const std::string& file, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return fmt::format("{}:{}:{}", file, line, column);
}

}  // namespace kvsim
