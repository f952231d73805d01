#include "core/free_block_queue.h"

namespace kvsim {

FreeBlockQueue::FreeBlockQueue(uint32_t num_blocks, uint32_t num_lanes)
    : prev_(num_blocks, kNullBlock),
      next_(num_blocks, kNullBlock),
      lane_of_(num_blocks, kNotQueued),
      lanes_(num_lanes) {
  KVSIM_CHECK(num_lanes > 0, "a free queue needs at least one lane");
}

uint32_t FreeBlockQueue::lane_of(BlockId block) const {
  KVSIM_CHECK(contains(block), "block is not in the free queue");
  return lane_of_[block];
}

BlockId FreeBlockQueue::front(uint32_t lane) const {
  KVSIM_CHECK(lanes_[lane].size > 0, "front() of an empty lane");
  return lanes_[lane].head;
}

void FreeBlockQueue::insert(uint32_t lane_index, BlockId block, bool at_front) {
  KVSIM_CHECK(!contains(block), "block is already in the free queue");
  Lane& lane = lanes_[lane_index];
  prev_[block] = kNullBlock;
  next_[block] = kNullBlock;
  if (lane.size == 0) {
    lane.head = block;
    lane.tail = block;
  } else if (at_front) {
    next_[block] = lane.head;
    prev_[lane.head] = block;
    lane.head = block;
  } else {
    prev_[block] = lane.tail;
    next_[lane.tail] = block;
    lane.tail = block;
  }
  ++lane.size;
  lane_of_[block] = lane_index;
  ++size_;
}

BlockId FreeBlockQueue::pop_front(uint32_t lane) {
  const BlockId block = front(lane);
  remove(block);
  return block;
}

void FreeBlockQueue::remove(BlockId block) {
  Lane& lane = lanes_[lane_of(block)];
  const BlockId before = prev_[block];
  const BlockId after = next_[block];
  if (before == kNullBlock) {
    lane.head = after;
  } else {
    next_[before] = after;
  }
  if (after == kNullBlock) {
    lane.tail = before;
  } else {
    prev_[after] = before;
  }
  prev_[block] = kNullBlock;
  next_[block] = kNullBlock;
  lane_of_[block] = kNotQueued;
  --lane.size;
  --size_;
}

void FreeBlockQueue::append_lane(uint32_t lane, std::vector<BlockId>* out) const {
  for (BlockId block = lanes_[lane].head; block != kNullBlock; block = next_[block]) {
    out->push_back(block);
  }
}

void FreeBlockQueue::check_invariants() const {
  uint32_t total = 0;
  for (uint32_t lane = 0; lane < lanes_.size(); ++lane) {
    uint32_t count = 0;
    BlockId previous = kNullBlock;
    for (BlockId block = lanes_[lane].head; block != kNullBlock; block = next_[block]) {
      KVSIM_CHECK(block < lane_of_.size(), "free queue links a block id out of range");
      KVSIM_CHECK(lane_of_[block] == lane, "free queue block is linked in a lane not its own");
      KVSIM_CHECK(prev_[block] == previous, "free queue prev/next links disagree");
      KVSIM_CHECK(++count <= lanes_[lane].size, "free queue lane longer than its size (cycle?)");
      previous = block;
    }
    KVSIM_CHECK(count == lanes_[lane].size, "free queue lane size is wrong");
    KVSIM_CHECK(previous == lanes_[lane].tail, "free queue lane tail is wrong");
    total += count;
  }
  uint32_t queued = 0;
  for (uint32_t lane : lane_of_) queued += lane != kNotQueued ? 1 : 0;
  KVSIM_CHECK(total == size_ && queued == size_, "free queue size disagrees with its lanes");
}

}  // namespace kvsim
