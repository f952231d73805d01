#include "core/cache/free_block_queue.h"

#include <algorithm>
#include <bit>

#include "core/base/prefetch.h"

namespace kvsim {

FreeBlockQueue::FreeBlockQueue(uint32_t num_blocks, uint32_t num_lanes)
    : links_(num_blocks), lanes_(num_lanes) {
  KVSIM_CHECK(num_lanes > 0, "a free queue needs at least one lane");
}

uint32_t FreeBlockQueue::lane_of(BlockId block) const {
  KVSIM_CHECK(contains(block), "block is not in the free queue");
  return links_[block].lane;
}

BlockId FreeBlockQueue::front(uint32_t lane) const {
  KVSIM_CHECK(lanes_[lane].size > 0, "front() of an empty lane");
  return lanes_[lane].at(lanes_[lane].head);
}

void FreeBlockQueue::place(uint32_t lane, uint32_t pos, BlockId block) {
  KVSIM_CHECK(!contains(block), "block is already in the free queue");
  lanes_[lane].at(pos) = block;
  links_[block] = {lane, pos};
  ++lanes_[lane].size;
  ++size_;
}

void FreeBlockQueue::push_back(uint32_t lane, BlockId block) {
  make_room(lane);
  place(lane, lanes_[lane].tail++, block);
}

void FreeBlockQueue::push_front(uint32_t lane, BlockId block) {
  make_room(lane);
  place(lane, --lanes_[lane].head, block);
}

BlockId FreeBlockQueue::pop_front(uint32_t lane_index) {
  Lane& lane = lanes_[lane_index];
  KVSIM_CHECK(lane.size > 0, "pop_front() of an empty lane");
  // The record of the entry a few pops ahead: successive pops' misses overlap.
  constexpr uint32_t kAhead = 8;
  if (lane.tail - lane.head > kAhead) prefetch_line(&links_[lane.at(lane.head + kAhead)]);
  const BlockId block = lane.at(lane.head++);
  links_[block].lane = kNotQueued;
  --lane.size;
  --size_;
  skip_stale(lane_index);
  return block;
}

void FreeBlockQueue::remove(BlockId block) {
  const uint32_t lane_index = lane_of(block);
  Lane& lane = lanes_[lane_index];
  links_[block].lane = kNotQueued;
  --lane.size;
  --size_;
  if (links_[block].pos == lane.head) skip_stale(lane_index);  // an emptied lane: at its head
}

void FreeBlockQueue::skip_stale(uint32_t lane_index) {
  Lane& lane = lanes_[lane_index];
  if (lane.size == 0) {
    lane.head = lane.tail = 0;
    return;
  }
  while (!live(lane_index, lane.head)) ++lane.head;
}

// Rewrites the live entries at positions 0 .. size-1 of a ring of the new capacity. At least
// half stale: the same capacity (the pushes this frees pay for the copy); else twice it.
void FreeBlockQueue::make_room(uint32_t lane_index) {
  Lane& lane = lanes_[lane_index];
  if (lane.tail - lane.head < lane.ring.size()) return;
  const size_t capacity = lane.ring.empty()                           ? size_t{16}
                          : 2 * size_t{lane.size} <= lane.ring.size() ? lane.ring.size()
                                                                      : 2 * lane.ring.size();
  KVSIM_CHECK(capacity <= (size_t{1} << 31), "a free queue lane outgrew 2^31 entries");
  std::vector<BlockId> ring(capacity);
  uint32_t pos = 0;
  for (uint32_t p = lane.head; p != lane.tail; ++p) {
    if (!live(lane_index, p)) continue;
    const BlockId block = lane.at(p);
    ring[pos] = block;
    links_[block].pos = pos++;
  }
  lane.ring = std::move(ring);
  lane.head = 0;
  lane.tail = pos;
}

void FreeBlockQueue::append_lane(uint32_t lane, std::vector<BlockId>* out) const {
  for (uint32_t p = lanes_[lane].head; p != lanes_[lane].tail; ++p) {
    if (live(lane, p)) out->push_back(lanes_[lane].at(p));
  }
}

void FreeBlockQueue::check_invariants() const {
  uint32_t total = 0;
  for (uint32_t index = 0; index < lanes_.size(); ++index) {
    const Lane& lane = lanes_[index];
    KVSIM_CHECK(lane.ring.empty() || std::has_single_bit(lane.ring.size()),
                "free queue ring capacity is not a power of two");
    KVSIM_CHECK(lane.tail - lane.head <= lane.ring.size(), "free queue ring overflows");
    uint32_t count = 0;
    for (uint32_t p = lane.head; p != lane.tail; ++p) {
      if (!live(index, p)) continue;
      KVSIM_CHECK(lane.at(p) < links_.size(), "free queue holds a block id out of range");
      ++count;
    }
    KVSIM_CHECK(count == lane.size, "free queue lane size is wrong");
    KVSIM_CHECK(lane.size == 0 || live(index, lane.head), "free queue lane front is stale");
    total += count;
  }
  uint32_t queued = 0;
  for (BlockId block = 0; block < links_.size(); ++block) {
    const Link& link = links_[block];
    if (link.lane == kNotQueued) continue;
    ++queued;
    const Lane& lane = lanes_[link.lane];
    KVSIM_CHECK(link.pos - lane.head < lane.tail - lane.head && lane.at(link.pos) == block,
                "a queued block's entry is not where its record says");
  }
  KVSIM_CHECK(total == size_ && queued == size_, "free queue size disagrees with its lanes");
}

}  // namespace kvsim
