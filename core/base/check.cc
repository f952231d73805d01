#include "core/base/check.h"

#include <cstdio>
#include <cstdlib>

namespace kvsim::internal {

void check_failed(const char* condition, const char* file, int line, std::string_view message) {
  std::fprintf(stderr, "kvsim: internal check failed at %s:%d: %s: %.*s\n", file, line, condition,
               static_cast<int>(message.size()), message.data());
  std::abort();
}

}  // namespace kvsim::internal
