// Units: the byte and time constants of the tree, so that a conversion says what it converts
// (`gib * kBytesPerGiB`, `seconds * kNsPerS`) instead of a bare 1024.0 * 1024.0 * 1024.0 or 1e9.
//
//   bytes   binary (IEC) units, in which memory sizes are given (memory_gib, capacity_gib,
//           host_swap_gib): kKiB = 2^10, kMiB = 2^20, kGiB = 2^30 bytes. Decimal kGB = 10^9
//           bytes only where a vendor quotes one (memory_gb) or a rate is in GB/s (every
//           *_gbps field is 10^9 bytes per second).
//   time    the simulator's clock is int64_t nanoseconds; traces give seconds or
//           milliseconds, the Chrome trace wants microseconds.
//
// The integer constants are exact; mixed with a double they convert exactly (all are below
// 2^53). kBytesPerGiB is kGiB as a double for fractional sizes: a uint64_t byte count divided
// by kGiB would truncate.
#pragma once

#include <cstdint>

namespace kvsim {

inline constexpr uint64_t kKiB = uint64_t{1} << 10;
inline constexpr uint64_t kMiB = uint64_t{1} << 20;
inline constexpr uint64_t kGiB = uint64_t{1} << 30;
inline constexpr uint64_t kGB = 1'000'000'000;  // decimal gigabyte
inline constexpr double kBytesPerGiB = static_cast<double>(kGiB);

inline constexpr uint64_t kBitsPerByte = 8;

inline constexpr int64_t kNsPerUs = 1'000;
inline constexpr int64_t kNsPerMs = 1'000'000;
inline constexpr int64_t kNsPerS = 1'000'000'000;
inline constexpr int64_t kMsPerS = 1'000;

// Simulated nanoseconds as seconds (output files, summaries, progress).
constexpr double ns_to_s(int64_t ns) { return static_cast<double>(ns) / kNsPerS; }

}  // namespace kvsim
