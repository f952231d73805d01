#include "core/model/hf_fields.h"

#include <cmath>
#include <limits>

namespace kvsim {

using nlohmann::json;

HfFields::HfFields(const json& root, std::string file) : root_(root), file_(std::move(file)) {
  const auto text = root_.find("text_config");
  text_ = (text != root_.end() && text->is_object()) ? &*text : &root_;
}

const json* HfFields::find(std::string_view key) const {
  const auto it = text_->find(key);
  if (it == text_->end() || it->is_null()) return nullptr;
  return &*it;
}

std::string HfFields::path(std::string_view key) const {
  return (text_ == &root_ ? "" : "text_config.") + std::string(key);
}

std::string HfFields::shown(const json& value) const {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

void HfFields::fail(std::string_view key, const std::string& message) {
  if (status_.is_ok()) {
    status_ = Status::invalid_argument(file_ + ": field '" + path(key) + "' " + message);
  }
}

void HfFields::fail(const std::string& message) {
  if (status_.is_ok()) status_ = Status::invalid_argument(file_ + ": " + message);
}

uint32_t HfFields::get(std::string_view key, uint32_t fallback) {
  const json* value = find(key);
  if (value == nullptr) return fallback;
  const bool integral_float = value->is_number_float() &&
                              std::floor(value->get<double>()) == value->get<double>() &&
                              value->get<double>() >= 0;
  if (!(value->is_number_unsigned() || integral_float) ||
      value->get<double>() > std::numeric_limits<uint32_t>::max()) {
    fail(key, "must be a non-negative integer below 2^32, got " + shown(*value));
    return fallback;
  }
  return static_cast<uint32_t>(value->get<double>());
}

uint32_t HfFields::need(std::string_view key) {
  if (find(key) == nullptr) {
    fail(key, "is missing (a positive integer is required)");
    return 0;
  }
  const uint32_t value = get(key, 0);
  if (value == 0) fail(key, "must be a positive integer, got 0");
  return value;
}

uint32_t HfFields::need_any(std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) {
    if (find(key) != nullptr) return need(key);
  }
  return need(*keys.begin());
}

bool HfFields::flag(std::string_view key, bool fallback) {
  const json* value = find(key);
  if (value == nullptr) return fallback;
  if (!value->is_boolean()) {
    fail(key, "must be true or false, got " + shown(*value));
    return fallback;
  }
  return value->get<bool>();
}

double HfFields::number(std::string_view key, double fallback) {
  const json* value = find(key);
  if (value == nullptr) return fallback;
  if (!value->is_number()) {
    fail(key, "must be a number, got " + shown(*value));
    return fallback;
  }
  return value->get<double>();
}

std::string HfFields::text_field(std::string_view key, const std::string& fallback) {
  const json* value = find(key);
  if (value == nullptr) return fallback;
  if (!value->is_string()) {
    fail(key, "must be a string, got " + shown(*value));
    return fallback;
  }
  return value->get<std::string>();
}

std::vector<std::string> HfFields::strings(std::string_view key) {
  std::vector<std::string> out;
  const json* value = find(key);
  if (value == nullptr) return out;
  if (!value->is_array()) {
    fail(key, "must be a list of strings, got " + shown(*value));
    return out;
  }
  for (const json& item : *value) {
    if (!item.is_string()) {
      fail(key, "must be a list of strings, got the item " + shown(item));
      return {};
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<uint32_t> HfFields::integers(std::string_view key) {
  std::vector<uint32_t> out;
  const json* value = find(key);
  if (value == nullptr) return out;
  if (!value->is_array()) {
    fail(key, "must be a list of integers, got " + shown(*value));
    return out;
  }
  for (const json& item : *value) {
    if (!item.is_number_unsigned() || item.get<uint64_t>() > std::numeric_limits<uint32_t>::max()) {
      fail(key, "must be a list of non-negative integers, got the item " + shown(item));
      return {};
    }
    out.push_back(item.get<uint32_t>());
  }
  return out;
}

}  // namespace kvsim
