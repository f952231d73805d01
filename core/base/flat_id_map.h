// FlatIdMap: an open-addressing hash map from 64-bit keys to 32-bit values.
//
// Used for the prefix cache (block hash -> block id) and for request id -> request slot. It
// exists because std::unordered_map allocates a node per insert; this map allocates only when
// it grows (capacity doubles when more than half full), so a steady state allocates nothing.
// Linear probing with backward-shift deletion (no tombstones). Keys may be any 64-bit value;
// the value kEmpty marks a free slot and may not be stored. Iteration order is not exposed:
// no outcome in kvsim may depend on it.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "core/base/check.h"
#include "core/base/huge_page_allocator.h"
#include "core/base/prefetch.h"

namespace kvsim {

class FlatIdMap {
 public:
  static constexpr uint32_t kEmpty = std::numeric_limits<uint32_t>::max();

  // Room for `expected_entries` without growing.
  explicit FlatIdMap(uint32_t expected_entries = 8) { rehash(capacity_for(expected_entries)); }

  uint32_t size() const { return size_; }

  // The value stored for `key`, or kEmpty.
  uint32_t find(uint64_t key) const {
    for (size_t slot = home(key);; slot = (slot + 1) & mask_) {
      const Entry& entry = entries_[slot];
      if (entry.value == kEmpty) return kEmpty;
      if (entry.key == key) return entry.value;
    }
  }

  // Asks for the cache line where find, insert or erase of `key` starts probing: a loop over
  // many keys prefetches a few keys ahead, so the lookups' cache misses overlap.
  void prefetch(uint64_t key) const { prefetch_line(&entries_[home(key)]); }

  // Inserts key -> value; returns false and changes nothing when the key is present.
  bool insert(uint64_t key, uint32_t value) {
    KVSIM_CHECK(value != kEmpty, "FlatIdMap cannot store kEmpty");
    if (2 * (size_ + 1) > entries_.size()) rehash(entries_.size() * 2);
    size_t slot = home(key);
    for (; entries_[slot].value != kEmpty; slot = (slot + 1) & mask_) {
      if (entries_[slot].key == key) return false;
    }
    entries_[slot] = {key, value};
    ++size_;
    return true;
  }

  // Stores `value` for the present `key`; returns false and changes nothing when it is absent.
  bool replace(uint64_t key, uint32_t value) {
    KVSIM_CHECK(value != kEmpty, "FlatIdMap cannot store kEmpty");
    for (size_t slot = home(key);; slot = (slot + 1) & mask_) {
      Entry& entry = entries_[slot];
      if (entry.value == kEmpty) return false;
      if (entry.key == key) {
        entry.value = value;
        return true;
      }
    }
  }

  // Removes `key`; returns false when it was absent.
  bool erase(uint64_t key) {
    size_t slot = home(key);
    for (;; slot = (slot + 1) & mask_) {
      if (entries_[slot].value == kEmpty) return false;
      if (entries_[slot].key == key) break;
    }
    // Backward shift: move later members of the probe run into the hole when their home
    // position lies cyclically at or before it.
    size_t hole = slot;
    for (size_t next = (hole + 1) & mask_; entries_[next].value != kEmpty;
         next = (next + 1) & mask_) {
      const size_t next_home = home(entries_[next].key);
      if (((next - next_home) & mask_) >= ((next - hole) & mask_)) {
        entries_[hole] = entries_[next];
        hole = next;
      }
    }
    entries_[hole].value = kEmpty;
    --size_;
    return true;
  }

 private:
  static size_t capacity_for(uint32_t entries) {
    size_t capacity = 16;
    while (capacity < 2 * size_t{entries}) capacity *= 2;
    return capacity;
  }

  // Fibonacci hashing: keys may be small integers (request ids), so spread them first.
  size_t home(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void rehash(size_t capacity) {
    std::vector<Entry, HugePageAllocator<Entry>> old_entries = std::move(entries_);
    entries_.assign(capacity, Entry{0, kEmpty});
    mask_ = capacity - 1;
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (const Entry& entry : old_entries) {
      if (entry.value != kEmpty) insert(entry.key, entry.value);
    }
  }

  // Key and value side by side: a probe touches one cache line, not one in each of two
  // arrays (the prefix cache of a large pool or tier misses the cache on most lookups).
  struct Entry {
    uint64_t key;
    uint32_t value;
  };
  std::vector<Entry, HugePageAllocator<Entry>> entries_;  // a pool's prefix cache: huge pages
  size_t mask_ = 0;
  int shift_ = 64;
  uint32_t size_ = 0;
};

}  // namespace kvsim
