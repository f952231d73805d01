#include "core/config/config_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>
#include <type_traits>

#include "core/base/names.h"

namespace kvsim {
namespace {

// Parses "7e9" / "1.5e3" as an exact integer; false when not integral or out of range.
bool parse_scientific_integer(std::string_view text, long double limit, long double* out) {
  if (text.find_first_of("eE") == std::string_view::npos) return false;
  std::string copy(text);
  char* end = nullptr;
  const long double value = std::strtold(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(value)) return false;
  if (value != std::floor(value) || std::fabs(value) > limit) return false;
  *out = value;
  return true;
}

template <typename T>
std::string range_text(T min, T max) {
  std::ostringstream text;
  text << "[" << min << ", " << max << "]";
  return text.str();
}

// One integer parser for both signs: plain digits, or a scientific form such as "7e9" that
// is an exact integer within `limit` (the largest long double that converts back to T).
template <typename T>
Status parse_integer(std::string_view text, long double limit, const char* expected, T* out) {
  T value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc() && end == text.data() + text.size() && !text.empty()) {
    *out = value;
    return Status::ok();
  }
  if (error == std::errc::result_out_of_range) {
    return Status::invalid_argument(fmt::format("'{}' does not fit in 64 bits", text));
  }
  long double scientific = 0;
  const bool sign_ok = std::is_signed_v<T> || (!text.empty() && text[0] != '-');
  if (sign_ok && parse_scientific_integer(text, limit, &scientific)) {
    *out = static_cast<T>(scientific);
    return Status::ok();
  }
  return Status::invalid_argument(fmt::format("expected {}, got '{}'", expected, text));
}

}  // namespace

Status parse_uint64(std::string_view text, uint64_t* out) {
  return parse_integer(text, 18446744073709549568.0L, "a non-negative integer", out);
}

Status parse_int64(std::string_view text, int64_t* out) {
  return parse_integer(text, 9223372036854774784.0L, "an integer", out);
}

Status parse_double(std::string_view text, double* out) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() ||
      !std::isfinite(value)) {
    return Status::invalid_argument(fmt::format("expected a finite number, got '{}'", text));
  }
  *out = value;
  return Status::ok();
}

Status parse_bool(std::string_view text, bool* out) {
  if (text == "true" || text == "yes" || text == "on") {
    *out = true;
    return Status::ok();
  }
  if (text == "false" || text == "no" || text == "off") {
    *out = false;
    return Status::ok();
  }
  return Status::invalid_argument(fmt::format("expected true or false, got '{}'", text));
}

ConfigReader::ConfigReader(const ConfigNode& node, std::string what)
    : node_(node), what_(std::move(what)) {
  if (!node_.is_map()) fail(node_, "expected a map of fields for " + what_);
}

const ConfigNode* ConfigReader::scalar_field(std::string_view key, bool required) {
  allow(key);
  if (!status_.is_ok()) return nullptr;
  const ConfigNode* field = node_.find(key);
  if (field == nullptr || field->is_null()) {
    if (required) fail(fmt::format("missing required field '{}' in {}", key, what_));
    return nullptr;
  }
  if (!field->is_scalar()) {
    fail(*field, fmt::format("field '{}' must be a single value", key));
    return nullptr;
  }
  return field;
}

template <typename T>
void ConfigReader::read_number(std::string_view key, T* out, T min, T max, bool required) {
  const ConfigNode* field = scalar_field(key, required);
  if (field == nullptr) return;
  Status parsed;
  T value{};
  if constexpr (std::is_same_v<T, double>) {
    parsed = parse_double(field->text(), &value);
  } else if constexpr (std::is_signed_v<T>) {
    int64_t wide = 0;
    parsed = parse_int64(field->text(), &wide);
    value = static_cast<T>(wide);
    if (parsed.is_ok() && (wide < min || wide > max)) parsed = Status::invalid_argument("");
  } else {
    uint64_t wide = 0;
    parsed = parse_uint64(field->text(), &wide);
    if (parsed.is_ok() && (wide < min || wide > max)) parsed = Status::invalid_argument("");
    value = static_cast<T>(wide);
  }
  if (parsed.is_ok() && (value < min || value > max)) parsed = Status::invalid_argument("");
  if (!parsed.is_ok()) {
    fail(*field, fmt::format("field '{}' must be a number in {}, got '{}'", key,
                             range_text(min, max), field->text()));
    return;
  }
  *out = value;
}

void ConfigReader::required(std::string_view key, uint32_t* out, uint32_t min, uint32_t max) {
  read_number(key, out, min, max, true);
}
void ConfigReader::required(std::string_view key, uint64_t* out, uint64_t min, uint64_t max) {
  read_number(key, out, min, max, true);
}
void ConfigReader::required(std::string_view key, double* out, double min, double max) {
  read_number(key, out, min, max, true);
}
void ConfigReader::optional(std::string_view key, uint32_t* out, uint32_t min, uint32_t max) {
  read_number(key, out, min, max, false);
}
void ConfigReader::optional(std::string_view key, uint64_t* out, uint64_t min, uint64_t max) {
  read_number(key, out, min, max, false);
}
void ConfigReader::optional(std::string_view key, int64_t* out, int64_t min, int64_t max) {
  read_number(key, out, min, max, false);
}
void ConfigReader::optional(std::string_view key, double* out, double min, double max) {
  read_number(key, out, min, max, false);
}

void ConfigReader::required(std::string_view key, std::string* out) {
  if (const ConfigNode* field = scalar_field(key, true)) *out = field->text();
}

void ConfigReader::optional(std::string_view key, std::string* out) {
  if (const ConfigNode* field = scalar_field(key, false)) *out = field->text();
}

void ConfigReader::optional(std::string_view key, bool* out) {
  optional_with(key, out, parse_bool);
}

const ConfigNode* ConfigReader::child(std::string_view key) {
  allow(key);
  if (!status_.is_ok()) return nullptr;
  const ConfigNode* field = node_.find(key);
  return (field == nullptr || field->is_null()) ? nullptr : field;
}

void ConfigReader::allow(std::string_view key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
}

bool ConfigReader::has(std::string_view key) const {
  const ConfigNode* field = node_.find(key);
  return field != nullptr && !field->is_null();
}

void ConfigReader::fail(const ConfigNode& node, const std::string& message) {
  if (status_.is_ok()) status_ = error_at(node.mark(), message);
}

void ConfigReader::fail(const std::string& message) { fail(node_, message); }

Status ConfigReader::finish() {
  if (!status_.is_ok() || !node_.is_map()) return status_;
  for (const ConfigNode::Entry& entry : node_.entries()) {
    if (std::find(known_.begin(), known_.end(), entry.first) != known_.end()) continue;
    std::vector<std::string> valid = known_;
    std::sort(valid.begin(), valid.end());
    fail(entry.second, unknown_name_message("field in " + what_, entry.first, valid));
    break;
  }
  return status_;
}

}  // namespace kvsim
