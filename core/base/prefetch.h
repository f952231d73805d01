// prefetch_line / prefetch_bytes: ask the cache hierarchy for memory before it is read.
//
// Used where a loop knows addresses ahead of the loads that need them: the attention kernels
// (the next tile of K/V) and the block pool and tiers (the hash-map slots of the next blocks,
// which miss the cache on most lookups in a large pool). A prefetch never changes a result.
#pragma once

#include <algorithm>
#include <cstddef>

namespace kvsim {

// Asks for the 64-byte line holding p, into L1 (kLocality 3) or only as far as L2 (kLocality
// 2). An asm statement on x86: GCC finds a function whose only effect is a __builtin_prefetch
// free of side effects and deletes the calls to it, so prefetches vanished from the binary
// unless every caller was inlined first.
template <int kLocality = 3>
inline void prefetch_line(const void* p) {
  static_assert(kLocality == 2 || kLocality == 3, "prefetch_line: L1 (3) or L2 (2)");
#if defined(__x86_64__) || defined(__i386__)
  if constexpr (kLocality == 3) {
    asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
  } else {
    asm volatile("prefetcht1 %0" : : "m"(*static_cast<const char*>(p)));
  }
#else
  __builtin_prefetch(p, 0, kLocality);
#endif
}

// prefetch_line for every line of [p, p + bytes).
template <int kLocality = 3>
inline void prefetch_bytes(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (size_t offset = 0; offset < bytes; offset += 64) prefetch_line<kLocality>(c + offset);
}

// For a loop over steps [begin, end) that each look something up by index: call it at the top
// of step i. It prefetches step i + kAhead's lookup (and on the first step those of begin ..
// begin + kAhead - 1), so that about kAhead lookups' cache misses are in flight at once.
// `prefetch(j)` asks for step j's memory (e.g. a hash-table slot) and changes nothing.
template <size_t kAhead, typename Prefetch>
inline void prefetch_ahead(size_t i, size_t begin, size_t end, Prefetch&& prefetch) {
  if (i == begin) {
    for (size_t j = begin; j < std::min(end, begin + kAhead); ++j) prefetch(j);
  }
  if (i + kAhead < end) prefetch(i + kAhead);
}

}  // namespace kvsim
