#include "simulator/io/timestamp.h"

#include <fmt/format.h>

#include <string>

#include "core/base/units.h"

namespace kvsim::sim {
namespace {

// Reads exactly `width` digits at *pos.
bool read_digits(std::string_view text, size_t* pos, size_t width, int64_t* out) {
  if (*pos + width > text.size()) return false;
  int64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    const char c = text[*pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *pos += width;
  *out = value;
  return true;
}

bool expect(std::string_view text, size_t* pos, char c) {
  if (*pos >= text.size() || text[*pos] != c) return false;
  ++*pos;
  return true;
}

bool valid_date(int64_t year, int64_t month, int64_t day) {
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month == 2 && !leap) return day <= 28;
  return day <= kDays[month - 1];
}

// Parses an optional ".fffffffff" fraction as nanoseconds.
bool read_fraction(std::string_view text, size_t* pos, int64_t* ns) {
  *ns = 0;
  if (*pos >= text.size() || text[*pos] != '.') return true;
  ++*pos;
  int digits = 0;
  int64_t scale = 100'000'000;
  while (*pos < text.size() && text[*pos] >= '0' && text[*pos] <= '9') {
    if (++digits > 9) return false;
    *ns += (text[*pos] - '0') * scale;
    scale /= 10;
    ++*pos;
  }
  return digits > 0;
}

// Parses an optional zone; *offset_s is east of UTC.
bool read_zone(std::string_view text, size_t* pos, int64_t* offset_s) {
  *offset_s = 0;
  if (*pos == text.size()) return true;
  if (text[*pos] == 'Z') {
    ++*pos;
    return true;
  }
  if (text[*pos] != '+' && text[*pos] != '-') return false;
  const int64_t sign = text[*pos] == '-' ? -1 : 1;
  ++*pos;
  int64_t hours = 0, minutes = 0;
  if (!read_digits(text, pos, 2, &hours) || !expect(text, pos, ':') ||
      !read_digits(text, pos, 2, &minutes) || hours > 23 || minutes > 59) {
    return false;
  }
  *offset_s = sign * (hours * 3600 + minutes * 60);
  return true;
}

}  // namespace

int64_t days_from_civil(int64_t year, unsigned month, unsigned day) {
  // Howard Hinnant's algorithm (chrono-Compatible Low-Level Date Algorithms).
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto yoe = static_cast<unsigned>(year - era * 400);
  const unsigned doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

StatusOr<int64_t> parse_timestamp_ns(std::string_view text) {
  const auto bad = [&] {
    return Status::parse_error(
        fmt::format("expected a date-time like '2023-11-16 18:15:46.6805900' "
                    "(optional fraction and +HH:MM zone), got '{}'",
                    text));
  };
  size_t pos = 0;
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_digits(text, &pos, 4, &year) || !expect(text, &pos, '-') ||
      !read_digits(text, &pos, 2, &month) || !expect(text, &pos, '-') ||
      !read_digits(text, &pos, 2, &day)) {
    return bad();
  }
  if (pos >= text.size() || (text[pos] != ' ' && text[pos] != 'T')) return bad();
  ++pos;
  if (!read_digits(text, &pos, 2, &hour) || !expect(text, &pos, ':') ||
      !read_digits(text, &pos, 2, &minute) || !expect(text, &pos, ':') ||
      !read_digits(text, &pos, 2, &second)) {
    return bad();
  }
  int64_t fraction_ns = 0, offset_s = 0;
  if (!read_fraction(text, &pos, &fraction_ns) || !read_zone(text, &pos, &offset_s) ||
      pos != text.size()) {
    return bad();
  }
  if (!valid_date(year, month, day) || hour > 23 || minute > 59 || second > 60) return bad();
  const int64_t days =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  return seconds * kNsPerS + fraction_ns;
}

}  // namespace kvsim::sim
