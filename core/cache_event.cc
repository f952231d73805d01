#include "core/cache_event.h"

#include <array>

namespace kvsim {

std::string_view cache_event_name(CacheEventKind kind) {
  // In the order of CacheEventKind.
  static constexpr std::array<std::string_view, 9> kNames = {
      "allocate", "hit", "cache", "evict", "free", "copy", "trim", "swap_out", "swap_in"};
  return kNames[static_cast<size_t>(kind)];
}

}  // namespace kvsim
