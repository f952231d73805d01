// Overflow-checked unsigned arithmetic for sizes computed from user input: a product that
// does not fit in 64 bits is bad input ("absurd value"), never a silent wrap.
#pragma once

#include <cstdint>
#include <optional>

namespace kvsim {

inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// ceil(a / b) for b > 0.
inline uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

}  // namespace kvsim
