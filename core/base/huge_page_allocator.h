// HugePageAllocator: a std::allocator that asks Linux for transparent huge pages (2 MiB) for
// large buffers. For the arrays a KV cache pool reads in random order (the prefix cache's hash
// slots, the blocks' records, the free queue's links): with 4 KiB pages nearly every access of
// a pool of ~10^5 blocks misses the TLB as well as the cache, and every first touch of a page
// faults. Where transparent huge pages are "madvise" (Debian's default) only memory advised
// MADV_HUGEPAGE gets them. A buffer of at least kHugePageMinBytes is rounded up to whole huge
// pages, aligned to one, and advised before its first touch; a smaller one is ordinary memory.
// Elsewhere (not Linux, or THP off) the advice does nothing. Never changes a result.
#pragma once

#include <cstddef>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace kvsim {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;
inline constexpr size_t kHugePageMinBytes = size_t{1} << 20;  // half a huge page wasted at most

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  explicit HugePageAllocator(const HugePageAllocator<U>& /*other*/) {}

  static bool huge(size_t n) { return n * sizeof(T) >= kHugePageMinBytes; }
  static size_t huge_bytes(size_t n) {
    return (n * sizeof(T) + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  }
  T* allocate(size_t n) {
    if (!huge(n)) return static_cast<T*>(::operator new(n * sizeof(T)));
    void* p = ::operator new (huge_bytes(n), std::align_val_t{kHugePageBytes});
#if defined(__linux__)
    madvise(p, huge_bytes(n), MADV_HUGEPAGE);  // advice only: a failure changes nothing
#endif
    return static_cast<T*>(p);
  }
  // Unsized deletes: clang (the fuzzer's build) declares the sized ones only with
  // -fsized-deallocation.
  void deallocate(T* p, size_t n) {
    if (!huge(n)) return ::operator delete(p);
    ::operator delete (p, std::align_val_t{kHugePageBytes});
  }
  template <typename U>
  bool operator==(const HugePageAllocator<U>& /*other*/) const {
    return true;
  }
};

}  // namespace kvsim
