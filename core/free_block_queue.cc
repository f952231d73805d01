#include "core/free_block_queue.h"

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
  return lanes_[lane].head;
}

void FreeBlockQueue::insert(uint32_t lane_index, BlockId block, bool at_front) {
  KVSIM_CHECK(!contains(block), "block is already in the free queue");
  Lane& lane = lanes_[lane_index];
  links_[block].prev = kNullBlock;
  links_[block].next = kNullBlock;
  if (lane.size == 0) {
    lane.head = block;
    lane.tail = block;
  } else if (at_front) {
    links_[block].next = lane.head;
    links_[lane.head].prev = block;
    lane.head = block;
  } else {
    links_[block].prev = lane.tail;
    links_[lane.tail].next = block;
    lane.tail = block;
  }
  ++lane.size;
  links_[block].lane = lane_index;
  ++size_;
}

BlockId FreeBlockQueue::pop_front(uint32_t lane) {
  const BlockId block = front(lane);
  remove(block);
  return block;
}

void FreeBlockQueue::remove(BlockId block) {
  Lane& lane = lanes_[lane_of(block)];
  const BlockId before = links_[block].prev;
  const BlockId after = links_[block].next;
  if (before == kNullBlock) {
    lane.head = after;
  } else {
    links_[before].next = after;
  }
  if (after == kNullBlock) {
    lane.tail = before;
  } else {
    links_[after].prev = before;
  }
  links_[block].prev = kNullBlock;
  links_[block].next = kNullBlock;
  links_[block].lane = kNotQueued;
  --lane.size;
  --size_;
}

void FreeBlockQueue::append_lane(uint32_t lane, std::vector<BlockId>* out) const {
  for (BlockId block = lanes_[lane].head; block != kNullBlock; block = links_[block].next) {
    out->push_back(block);
  }
}

void FreeBlockQueue::check_invariants() const {
  uint32_t total = 0;
  for (uint32_t lane = 0; lane < lanes_.size(); ++lane) {
    uint32_t count = 0;
    BlockId previous = kNullBlock;
    for (BlockId block = lanes_[lane].head; block != kNullBlock; block = links_[block].next) {
      KVSIM_CHECK(block < links_.size(), "free queue links a block id out of range");
      KVSIM_CHECK(links_[block].lane == lane, "free queue block is linked in a lane not its own");
      KVSIM_CHECK(links_[block].prev == previous, "free queue prev/next links disagree");
      KVSIM_CHECK(++count <= lanes_[lane].size, "free queue lane longer than its size (cycle?)");
      previous = block;
    }
    KVSIM_CHECK(count == lanes_[lane].size, "free queue lane size is wrong");
    KVSIM_CHECK(previous == lanes_[lane].tail, "free queue lane tail is wrong");
    total += count;
  }
  uint32_t queued = 0;
  for (const Link& link : links_) queued += link.lane != kNotQueued ? 1 : 0;
  KVSIM_CHECK(total == size_ && queued == size_, "free queue size disagrees with its lanes");
}

}  // namespace kvsim
