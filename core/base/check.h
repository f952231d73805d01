// KVSIM_CHECK: an always-on invariant check (also in release builds).
//
// A failed check is a bug in kvsim, never a consequence of user input: it prints the
// condition, the place and the message to stderr and aborts. Input errors are Status values
// (core/base/status.h); "no room" is std::optional.
#pragma once

#include <string_view>

namespace kvsim::internal {
[[noreturn]] void check_failed(const char* condition, const char* file, int line,
                               std::string_view message);
}  // namespace kvsim::internal

#define KVSIM_CHECK(condition, message)                                           \
  do {                                                                            \
    if (!(condition)) [[unlikely]]                                                \
      ::kvsim::internal::check_failed(#condition, __FILE__, __LINE__, (message)); \
  } while (0)
