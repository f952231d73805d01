// Text of JSON files written by Python (transformers' config.json, benchmark results): the
// non-finite numbers Python's json writes and JSON lacks, and where in the text an error is.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kvsim {

// Infinity and -Infinity outside strings replaced by null, NaN by 0 (no room for null), padded
// with spaces so that every other byte stays where it was (error positions in the result are
// the original's).
std::string without_non_finite(std::string_view text);

// "file:line:column" of the 1-based byte offset `byte` in `text` (nlohmann's parse_error::byte).
std::string text_position(std::string_view text, const std::string& file, size_t byte);

}  // namespace kvsim
