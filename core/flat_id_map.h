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

#include "core/check.h"

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
      if (values_[slot] == kEmpty) return kEmpty;
      if (keys_[slot] == key) return values_[slot];
    }
  }

  // Inserts key -> value; returns false and changes nothing when the key is present.
  bool insert(uint64_t key, uint32_t value) {
    KVSIM_CHECK(value != kEmpty, "FlatIdMap cannot store kEmpty");
    if (2 * (size_ + 1) > values_.size()) rehash(values_.size() * 2);
    size_t slot = home(key);
    for (; values_[slot] != kEmpty; slot = (slot + 1) & mask_) {
      if (keys_[slot] == key) return false;
    }
    keys_[slot] = key;
    values_[slot] = value;
    ++size_;
    return true;
  }

  // Removes `key`; returns false when it was absent.
  bool erase(uint64_t key) {
    size_t slot = home(key);
    for (;; slot = (slot + 1) & mask_) {
      if (values_[slot] == kEmpty) return false;
      if (keys_[slot] == key) break;
    }
    // Backward shift: move later members of the probe run into the hole when their home
    // position lies cyclically at or before it.
    size_t hole = slot;
    for (size_t next = (hole + 1) & mask_; values_[next] != kEmpty; next = (next + 1) & mask_) {
      const size_t next_home = home(keys_[next]);
      if (((next - next_home) & mask_) >= ((next - hole) & mask_)) {
        keys_[hole] = keys_[next];
        values_[hole] = values_[next];
        hole = next;
      }
    }
    values_[hole] = kEmpty;
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
    std::vector<uint64_t> old_keys = std::move(keys_);
    std::vector<uint32_t> old_values = std::move(values_);
    keys_.assign(capacity, 0);
    values_.assign(capacity, kEmpty);
    mask_ = capacity - 1;
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (size_t i = 0; i < old_values.size(); ++i) {
      if (old_values[i] != kEmpty) insert(old_keys[i], old_values[i]);
    }
  }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> values_;
  size_t mask_ = 0;
  int shift_ = 64;
  uint32_t size_ = 0;
};

}  // namespace kvsim
