// FreeBlockQueue: the free blocks of a pool in intrusive doubly linked lists ("lanes").
//
// vLLM's FreeKVCacheBlockQueue with one generalisation: the queue is split into a fixed number
// of lanes, each an intrusive list threaded through per-block prev/next arrays, so that every
// operation is O(1) and allocation-free (the arrays are sized once, at construction):
//
//   lane 0:  [b7] <-> [b3] <-> [b9]        front = popped first
//   lane 1:  [b2] <-> [b5]
//   ...
//
// The eviction policy (core/eviction_policy.h) decides which lane a freed block joins and at
// which end, and pops from the lowest non-empty lane it cares about; read lane by lane, front
// to back, the lanes are the eviction order. A block is in at most one lane; its lane is
// remembered so remove() needs only the block id.
#pragma once

#include <cstdint>
#include <vector>

#include "core/block_id.h"
#include "core/check.h"

namespace kvsim {

class FreeBlockQueue {
 public:
  // A queue for blocks 0 .. num_blocks-1 with `num_lanes` lanes, all empty.
  FreeBlockQueue(uint32_t num_blocks, uint32_t num_lanes);

  uint32_t num_lanes() const { return static_cast<uint32_t>(lanes_.size()); }
  uint32_t size() const { return size_; }
  uint32_t size(uint32_t lane) const { return lanes_[lane].size; }
  bool contains(BlockId block) const { return links_[block].lane != kNotQueued; }
  // The lane holding `block`; the block must be queued.
  uint32_t lane_of(BlockId block) const;
  // The first block of a non-empty lane.
  BlockId front(uint32_t lane) const;

  void push_back(uint32_t lane, BlockId block) { insert(lane, block, false); }
  void push_front(uint32_t lane, BlockId block) { insert(lane, block, true); }
  BlockId pop_front(uint32_t lane);
  void remove(BlockId block);

  // Appends the blocks of `lane`, front to back, to *out.
  void append_lane(uint32_t lane, std::vector<BlockId>* out) const;
  // KVSIM_CHECKs that every lane is a consistent list, blocks are in one lane each, and the
  // sizes add up.
  void check_invariants() const;

 private:
  static constexpr uint32_t kNotQueued = 0xFFFFFFFFu;
  struct Lane {
    BlockId head = kNullBlock;
    BlockId tail = kNullBlock;
    uint32_t size = 0;
  };

  void insert(uint32_t lane_index, BlockId block, bool at_front);

  // A block's links and lane side by side: one cache line per block touched.
  struct Link {
    BlockId prev = kNullBlock;
    BlockId next = kNullBlock;
    uint32_t lane = kNotQueued;
  };
  std::vector<Link> links_;
  std::vector<Lane> lanes_;
  uint32_t size_ = 0;
};

}  // namespace kvsim
