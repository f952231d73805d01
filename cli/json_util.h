// Small helpers for JSON output: optionals become null, bit counts become exact bytes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

namespace kvsim::cli {

inline nlohmann::json json_or_null(const std::optional<uint64_t>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// Bytes from bits: an integer when whole, else a number with the fraction (int4 halves).
inline nlohmann::json json_bytes_from_bits(uint64_t bits) {
  if (bits % 8 == 0) return nlohmann::json(bits / 8);
  return nlohmann::json(static_cast<double>(bits) / 8.0);
}

}  // namespace kvsim::cli
