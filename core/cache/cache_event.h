// CacheEvent: one thing the KV cache did, for teaching output and the GUI's animation.
//
// BlockPool and KvCacheManager append events to a caller-owned log when one is attached
// (set_event_log); with none attached they record nothing and cost one null check.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/cache/block_id.h"

namespace kvsim {

enum class CacheEventKind : uint8_t {
  kAllocate,  // `block` popped off the free queue for `request` (table index `index`)
  kHit,       // prefix hit: cached `block` (hash `hash`) taken by `request` at `index`
  kCache,     // `block` of `request` registered under `hash` (it is full)
  kEvict,     // cached `block` popped for reuse: `hash` dropped from the prefix cache
  kFree,      // `request` released `block` (ref count fell by one; `index` in its table)
  kCopy,      // copy-on-write: `request` copied shared partial `block` into `other_block`
  kTrim,      // retention: `request` dropped `block` at `index` (no kept position in it)
  kSwapOut,   // `request`'s `block` at `index` copied to the host tier and released
  kSwapIn,    // `request`'s entry `index` copied back from the host into `block`
};

// "allocate", "hit", "cache", "evict", "free", "copy", "trim", "swap_out", "swap_in".
std::string_view cache_event_name(CacheEventKind kind);

struct CacheEvent {
  CacheEventKind kind = CacheEventKind::kAllocate;
  RequestId request = 0;  // unused for kEvict
  BlockId block = kNullBlock;
  BlockId other_block = kNullBlock;  // kCopy: the new block
  uint32_t index = 0;                // position in the request's block table
  BlockHash hash = 0;                // kHit, kCache, kEvict
};

// "0x" and 16 hex digits: how a prefix hash is shown to people (CLI text and JSON, GUI).
std::string block_hash_text(BlockHash hash);

// One line for people: "request 2 hits cached block 1", "block 6 evicted (0x...)".
std::string cache_event_text(const CacheEvent& event);

}  // namespace kvsim
