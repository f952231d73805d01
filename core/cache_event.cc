#include "core/cache_event.h"

namespace kvsim {

std::string_view cache_event_name(CacheEventKind kind) {
  switch (kind) {
    case CacheEventKind::kAllocate: return "allocate";
    case CacheEventKind::kHit: return "hit";
    case CacheEventKind::kCache: return "cache";
    case CacheEventKind::kEvict: return "evict";
    case CacheEventKind::kFree: return "free";
    case CacheEventKind::kCopy: return "copy";
    case CacheEventKind::kTrim: return "trim";
    case CacheEventKind::kSwapOut: return "swap_out";
    case CacheEventKind::kSwapIn: return "swap_in";
  }
  return "unknown";
}

}  // namespace kvsim
