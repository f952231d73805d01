#include "core/cache/cache_event.h"

#include <cinttypes>
#include <cstdio>

#include "core/base/enum_names.h"

namespace kvsim {
namespace {

constexpr EnumNames<CacheEventKind, 9> kNames{{{
    {CacheEventKind::kAllocate, "allocate"},
    {CacheEventKind::kHit, "hit"},
    {CacheEventKind::kCache, "cache"},
    {CacheEventKind::kEvict, "evict"},
    {CacheEventKind::kFree, "free"},
    {CacheEventKind::kCopy, "copy"},
    {CacheEventKind::kTrim, "trim"},
    {CacheEventKind::kSwapOut, "swap_out"},
    {CacheEventKind::kSwapIn, "swap_in"},
}}};

}  // namespace

std::string_view cache_event_name(CacheEventKind kind) { return kNames.name(kind); }

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
