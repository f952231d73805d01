#include "core/cache_event.h"

#include <array>
#include <cinttypes>
#include <cstdio>

namespace kvsim {

std::string_view cache_event_name(CacheEventKind kind) {
  // In the order of CacheEventKind.
  static constexpr std::array<std::string_view, 9> kNames = {
      "allocate", "hit", "cache", "evict", "free", "copy", "trim", "swap_out", "swap_in"};
  return kNames[static_cast<size_t>(kind)];
}

std::string block_hash_text(BlockHash hash) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%016" PRIx64, hash);
  return text;
}

std::string cache_event_text(const CacheEvent& e) {
  const std::string request = "request " + std::to_string(e.request);
  const std::string block = "block " + std::to_string(e.block);
  switch (e.kind) {
    case CacheEventKind::kAllocate:
      return request + " gets " + block;
    case CacheEventKind::kHit:
      return request + " hits cached " + block;
    case CacheEventKind::kCache:
      return block + " cached (full)";
    case CacheEventKind::kEvict:
      return block + " evicted (" + block_hash_text(e.hash) + ")";
    case CacheEventKind::kFree:
      return request + " releases " + block;
    case CacheEventKind::kCopy:
      return request + " copies " + block + " -> block " + std::to_string(e.other_block);
    case CacheEventKind::kTrim:
      return request + " drops " + block;
    case CacheEventKind::kSwapOut:
      return request + " swaps out " + block;
    case CacheEventKind::kSwapIn:
      return request + " swaps in " + block;
  }
  return "?";
}

}  // namespace kvsim
