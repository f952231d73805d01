// Number formatting shared by the CLI's and the GUI's text: thousands separators, IEC byte
// sizes, fixed decimals. Pure functions, locale-independent.
#pragma once

#include <cstdint>
#include <string>

namespace kvsim {

// 1234567 -> "1,234,567".
std::string format_count(uint64_t value);

// Bytes in the largest IEC unit that keeps the number >= 1: "72.00 GiB", "512 B".
std::string format_bytes(uint64_t bytes);
std::string format_bytes(double bytes);

// A number with `decimals` digits after the point, no exponent: "0.90".
std::string format_fixed(double value, int decimals);

// A number without trailing zeros: 2.5 -> "2.5", 128 -> "128", 0.125 -> "0.125".
std::string format_number(double value);

}  // namespace kvsim
