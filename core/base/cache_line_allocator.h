// CacheLineAllocator: a std::allocator whose blocks start on a cache line and fill whole lines,
// so that no other allocation shares a line with them. For the buffers one thread writes
// while another writes its own nearby (a parallel cluster run: simulator/cluster/
// cluster_parallel.cc); a line two cores write bounces between them at every write.
#pragma once

#include <cstddef>
#include <new>

namespace kvsim {

inline constexpr size_t kCacheLineBytes = 64;

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U>
  explicit CacheLineAllocator(const CacheLineAllocator<U>& /*other*/) {}

  static size_t bytes(size_t n) {
    return (n * sizeof(T) + kCacheLineBytes - 1) / kCacheLineBytes * kCacheLineBytes;
  }
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new (bytes(n), std::align_val_t{kCacheLineBytes}));
  }
  void deallocate(T* p, size_t /*n*/) {
    ::operator delete (p, std::align_val_t{kCacheLineBytes});  // unsized: see huge_page_allocator.h
  }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>& /*other*/) const {
    return true;
  }
};

}  // namespace kvsim
