// Overflow-checked unsigned arithmetic for sizes computed from user input: a product that
// does not fit in 64 bits is bad input ("absurd value"), never a silent wrap. ceil_div is the
// one rounding-up division of the tree.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <type_traits>

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

// ceil(a / b) for b > 0, in the common type of a and b (uint32_t and uint64_t give uint64_t).
// Unlike (a + b - 1) / b it cannot wrap: ceil_div(UINT64_MAX, 2u) is 2^63. Round a up to a
// multiple of b with ceil_div(a, b) * b.
template <std::unsigned_integral A, std::unsigned_integral B>
constexpr std::common_type_t<A, B> ceil_div(A a, B b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

}  // namespace kvsim
