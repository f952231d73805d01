// FreeBlockQueue: the free blocks of a pool in a fixed number of FIFO "lanes".
//
// vLLM's FreeKVCacheBlockQueue (a doubly linked list) with two changes: the queue is split into
// lanes, and each lane is a ring buffer of block ids with lazy removal instead of a list:
//
//   lane 0 ring:  [b7] [b3] (b9) [b4]        front = popped first; (b9) removed, skipped
//   lane 1 ring:  [b2] [b5]
//   block b:      {lane, position in its lane's ring}
//
// An entry of a lane's ring is live iff its block's record names that lane and that position;
// remove() only clears the block's record, and the stale entry is skipped when it reaches the
// front. Why not a list: popping a list follows next pointers, one dependent cache miss per
// block in a large pool whose free order is scattered; popping a ring reads ids in memory
// order, so the misses on the blocks' records overlap. Positions are 32-bit counters that wrap;
// a ring never spans 2^32 positions, so comparing them is exact.
//
// Every operation is O(1) amortized: a full ring is compacted (its stale entries dropped) when
// at least half of it is stale, else it doubles. A lane's ring grows to at most 4x the most
// blocks it held at once, and then no operation allocates.
//
// The eviction policy (core/cache/eviction_policy.h) decides which lane a freed block joins and at
// which end, and pops from the lowest non-empty lane it cares about; read lane by lane, front
// to back, the lanes are the eviction order. A block is in at most one lane.
#pragma once

#include <cstdint>
#include <vector>

#include "core/base/check.h"
#include "core/base/huge_page_allocator.h"
#include "core/cache/block_id.h"

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

  void push_back(uint32_t lane, BlockId block);
  void push_front(uint32_t lane, BlockId block);
  BlockId pop_front(uint32_t lane);
  void remove(BlockId block);

  // Appends the blocks of `lane`, front to back, to *out.
  void append_lane(uint32_t lane, std::vector<BlockId>* out) const;
  // KVSIM_CHECKs that every lane's live entries are its blocks, in one lane each, that every
  // non-empty lane's front is live, and that the sizes add up.
  void check_invariants() const;

 private:
  static constexpr uint32_t kNotQueued = 0xFFFFFFFFu;
  struct Link {  // where a queued block's live entry is
    uint32_t lane = kNotQueued;
    uint32_t pos = 0;
  };
  struct Lane {
    std::vector<BlockId> ring;  // capacity a power of two (or 0); entry p at ring[p & mask]
    uint32_t head = 0;          // position of the front entry (live when size > 0)
    uint32_t tail = 0;          // one past the back entry
    uint32_t size = 0;          // live entries
    BlockId& at(uint32_t pos) { return ring[pos & (ring.size() - 1)]; }
    BlockId at(uint32_t pos) const { return ring[pos & (ring.size() - 1)]; }
  };

  bool live(uint32_t lane, uint32_t pos) const {
    const Link& link = links_[lanes_[lane].at(pos)];
    return link.lane == lane && link.pos == pos;
  }
  void place(uint32_t lane, uint32_t pos, BlockId block);
  // Makes room for one more entry: compacts or doubles a full ring.
  void make_room(uint32_t lane);
  // Moves the front past stale entries (an empty lane restarts at position 0).
  void skip_stale(uint32_t lane);

  std::vector<Link, HugePageAllocator<Link>> links_;
  std::vector<Lane> lanes_;
  uint32_t size_ = 0;
};

}  // namespace kvsim
