// Date-time stamps of production logs ("2023-11-16 18:15:46.6805900", Azure's LLM inference
// traces) as integer nanoseconds since 1970-01-01 UTC.
//
// Accepted: "YYYY-MM-DD HH:MM:SS" or with 'T' between date and time, an optional fraction of
// 1 to 9 digits, and an optional zone "Z" or "+HH:MM" / "-HH:MM" (the offset is subtracted,
// so the result is UTC). Anything else is an error that says what was expected.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/base/status.h"

namespace kvsim::sim {

StatusOr<int64_t> parse_timestamp_ns(std::string_view text);

// Days from 1970-01-01 to the given proleptic Gregorian date (negative before 1970).
int64_t days_from_civil(int64_t year, unsigned month, unsigned day);

}  // namespace kvsim::sim
