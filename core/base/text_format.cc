#include "core/base/text_format.h"

#include <array>
#include <cmath>
#include <cstdio>

#include "core/base/units.h"

namespace kvsim {

std::string format_count(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_bytes(double bytes) {
  static constexpr std::array<const char*, 7> kUnits = {"B",   "KiB", "MiB", "GiB",
                                                        "TiB", "PiB", "EiB"};
  size_t unit = 0;
  double value = bytes;
  while (std::fabs(value) >= kKiB && unit + 1 < kUnits.size()) {
    value /= kKiB;
    ++unit;
  }
  if (unit == 0) return format_number(value) + " B";
  return format_fixed(value, 2) + " " + kUnits[unit];
}

std::string format_bytes(uint64_t bytes) { return format_bytes(static_cast<double>(bytes)); }

std::string format_fixed(double value, int decimals) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  return buffer.data();
}

std::string format_number(double value) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.6f", value);
  std::string text = buffer.data();
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

}  // namespace kvsim
