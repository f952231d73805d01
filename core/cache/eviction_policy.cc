#include "core/cache/eviction_policy.h"

#include <algorithm>
#include <bit>

#include "core/base/check.h"
#include "core/base/enum_names.h"
#include "core/cache/free_block_queue.h"

namespace kvsim {
namespace {

// The one table of eviction policy names.
constexpr EnumNames<EvictionKind, 4> kEvictionNames{{{
    {EvictionKind::kLru, "lru"},
    {EvictionKind::kLfu, "lfu"},
    {EvictionKind::kFifo, "fifo"},
    {EvictionKind::kNone, "none"},
}}};

// Lane 0 holds the free blocks without a hash (lfu, fifo) or every free block (lru, none), in
// the order they were freed.
constexpr uint32_t kEmptyLane = 0;

// A policy whose whole free set lives in the lanes of one FreeBlockQueue.
class LanePolicy : public EvictionPolicy {
 public:
  LanePolicy(uint32_t num_blocks, uint32_t num_lanes) : queue_(num_blocks, num_lanes) {}
  void remove(BlockId block) override { queue_.remove(block); }
  uint32_t size() const override { return queue_.size(); }
  bool contains(BlockId block) const override { return queue_.contains(block); }
  void eviction_order(std::vector<BlockId>* out) const override {
    out->clear();
    for (uint32_t lane = 0; lane < queue_.num_lanes(); ++lane) queue_.append_lane(lane, out);
  }
  void check_invariants() const override { queue_.check_invariants(); }

 protected:
  FreeBlockQueue queue_;
};

// One lane, every free block in the order it was freed, hashed or not: vLLM v1's single
// FreeKVCacheBlockQueue. "lru" caches prefixes, "none" does not.
class FreeOrderPolicy final : public LanePolicy {
 public:
  FreeOrderPolicy(uint32_t num_blocks, bool caches) : LanePolicy(num_blocks, 1), caches_(caches) {}
  EvictionKind kind() const override { return caches_ ? EvictionKind::kLru : EvictionKind::kNone; }
  void push(BlockId block, bool cached) override {
    KVSIM_CHECK(caches_ || !cached, "a block was cached with prefix caching off");
    queue_.push_back(kEmptyLane, block);
  }
  BlockId pop() override { return queue_.pop_front(kEmptyLane); }

 private:
  bool caches_;
};

// Least frequently used: cached free blocks in lane min(uses, 63), uses = 1 + prefix hits
// since the block was cached; a bit mask of non-empty lanes finds the lowest in O(1).
class LfuPolicy final : public LanePolicy {
 public:
  explicit LfuPolicy(uint32_t num_blocks)
      : LanePolicy(num_blocks, kNumLanes), uses_(num_blocks, 0) {}
  EvictionKind kind() const override { return EvictionKind::kLfu; }
  void on_cached(BlockId block) override { uses_[block] = 1; }
  void on_hit(BlockId block) override {
    uses_[block] = static_cast<uint8_t>(std::min<uint32_t>(uses_[block] + 1u, kNumLanes - 1));
  }
  void push(BlockId block, bool cached) override {
    const uint32_t lane = cached ? std::max<uint32_t>(uses_[block], 1) : kEmptyLane;
    queue_.push_back(lane, block);
    nonempty_ |= uint64_t{1} << lane;
  }
  void remove(BlockId block) override {
    const uint32_t lane = queue_.lane_of(block);
    queue_.remove(block);
    if (queue_.size(lane) == 0) nonempty_ &= ~(uint64_t{1} << lane);
  }
  BlockId pop() override {
    KVSIM_CHECK(nonempty_ != 0, "pop() from an empty free queue");
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(nonempty_));
    const BlockId block = queue_.pop_front(lane);
    if (queue_.size(lane) == 0) nonempty_ &= ~(uint64_t{1} << lane);
    return block;
  }
  void check_invariants() const override {
    LanePolicy::check_invariants();
    for (uint32_t lane = 0; lane < kNumLanes; ++lane) {
      KVSIM_CHECK(((nonempty_ >> lane) & 1) == (queue_.size(lane) > 0 ? 1u : 0u),
                  "lfu non-empty lane mask disagrees with the lanes");
    }
  }

 private:
  static constexpr uint32_t kNumLanes = 64;
  std::vector<uint8_t> uses_;
  uint64_t nonempty_ = 0;
};

// First in, first out by cache time: empty blocks in a lane, cached free blocks in an indexed
// 4-ary min-heap keyed by the sequence number they got when cached (unique, so no ties). The
// key is stored beside the block in the heap so that sifting touches one array.
class FifoPolicy final : public EvictionPolicy {
 public:
  explicit FifoPolicy(uint32_t num_blocks)
      : empty_(num_blocks, 1), cached_seq_(num_blocks, 0), heap_pos_(num_blocks, kNotInHeap) {
    heap_.reserve(num_blocks);
  }
  EvictionKind kind() const override { return EvictionKind::kFifo; }
  void on_cached(BlockId block) override { cached_seq_[block] = next_seq_++; }
  void push(BlockId block, bool cached) override;
  void remove(BlockId block) override;
  BlockId pop() override;
  uint32_t size() const override { return empty_.size() + static_cast<uint32_t>(heap_.size()); }
  bool contains(BlockId block) const override {
    return empty_.contains(block) || heap_pos_[block] != kNotInHeap;
  }
  void eviction_order(std::vector<BlockId>* out) const override;
  void check_invariants() const override;

 private:
  static constexpr uint32_t kNotInHeap = 0xFFFFFFFFu;
  static constexpr uint32_t kArity = 4;
  struct Entry {
    uint64_t seq;
    BlockId block;
  };
  void place(uint32_t index, Entry entry) {
    heap_[index] = entry;
    heap_pos_[entry.block] = index;
  }
  void sift_up(uint32_t index, Entry entry);
  void erase_at(uint32_t index);

  FreeBlockQueue empty_;
  std::vector<uint64_t> cached_seq_;
  std::vector<uint32_t> heap_pos_;
  std::vector<Entry> heap_;
  uint64_t next_seq_ = 0;
};

void FifoPolicy::push(BlockId block, bool cached) {
  if (!cached) {
    empty_.push_back(kEmptyLane, block);
    return;
  }
  KVSIM_CHECK(heap_pos_[block] == kNotInHeap, "block is already in the free queue");
  heap_.push_back({cached_seq_[block], block});
  sift_up(static_cast<uint32_t>(heap_.size() - 1), heap_.back());
}

void FifoPolicy::remove(BlockId block) {
  if (empty_.contains(block)) {
    empty_.remove(block);
    return;
  }
  KVSIM_CHECK(heap_pos_[block] != kNotInHeap, "block is not in the free queue");
  erase_at(heap_pos_[block]);
}

BlockId FifoPolicy::pop() {
  if (empty_.size() > 0) return empty_.pop_front(kEmptyLane);
  KVSIM_CHECK(!heap_.empty(), "pop() from an empty free queue");
  const BlockId block = heap_[0].block;
  erase_at(0);
  return block;
}

// Floyd's bottom-up deletion: the hole sinks to a leaf along the smaller children, then the
// heap's last entry fills it and sifts up (the last entry is usually the newest cached block,
// which belongs near the bottom anyway).
void FifoPolicy::erase_at(uint32_t index) {
  heap_pos_[heap_[index].block] = kNotInHeap;
  const Entry last = heap_.back();
  heap_.pop_back();
  const uint32_t n = static_cast<uint32_t>(heap_.size());
  if (index == n) return;
  for (;;) {
    const uint32_t first = kArity * index + 1;
    if (first >= n) break;
    uint32_t best = first;
    const uint32_t end = std::min(first + kArity, n);
    for (uint32_t child = first + 1; child < end; ++child) {
      best = heap_[child].seq < heap_[best].seq ? child : best;
    }
    place(index, heap_[best]);
    index = best;
  }
  sift_up(index, last);
}

void FifoPolicy::sift_up(uint32_t index, Entry entry) {
  while (index > 0) {
    const uint32_t parent = (index - 1) / kArity;
    if (heap_[parent].seq <= entry.seq) break;
    place(index, heap_[parent]);
    index = parent;
  }
  place(index, entry);
}

void FifoPolicy::eviction_order(std::vector<BlockId>* out) const {
  out->clear();
  empty_.append_lane(kEmptyLane, out);
  std::vector<Entry> cached = heap_;
  std::sort(cached.begin(), cached.end(),
            [](const Entry& a, const Entry& b) { return a.seq < b.seq; });
  for (const Entry& entry : cached) out->push_back(entry.block);
}

void FifoPolicy::check_invariants() const {
  empty_.check_invariants();
  for (uint32_t i = 0; i < heap_.size(); ++i) {
    const Entry& entry = heap_[i];
    KVSIM_CHECK(heap_pos_[entry.block] == i, "fifo heap position index is wrong");
    KVSIM_CHECK(entry.seq == cached_seq_[entry.block], "fifo heap key is stale");
    KVSIM_CHECK(!empty_.contains(entry.block), "block is in both fifo structures");
    if (i > 0) KVSIM_CHECK(heap_[(i - 1) / kArity].seq < entry.seq, "fifo heap order is broken");
  }
  uint32_t indexed = 0;
  for (uint32_t pos : heap_pos_) indexed += pos != kNotInHeap ? 1 : 0;
  KVSIM_CHECK(indexed == heap_.size(), "fifo heap index counts blocks not in the heap");
}

}  // namespace

std::string_view eviction_name(EvictionKind kind) { return kEvictionNames.name(kind); }

StatusOr<EvictionKind> parse_eviction(std::string_view name) {
  return kEvictionNames.parse(name, "eviction policy");
}

std::vector<std::string> eviction_names() { return kEvictionNames.names(); }

std::unique_ptr<EvictionPolicy> make_eviction_policy(EvictionKind kind, uint32_t num_blocks) {
  switch (kind) {
    case EvictionKind::kLru:
      return std::make_unique<FreeOrderPolicy>(num_blocks, true);
    case EvictionKind::kLfu:
      return std::make_unique<LfuPolicy>(num_blocks);
    case EvictionKind::kFifo:
      return std::make_unique<FifoPolicy>(num_blocks);
    case EvictionKind::kNone:
      return std::make_unique<FreeOrderPolicy>(num_blocks, false);
  }
  KVSIM_CHECK(false, "an eviction kind missing from make_eviction_policy");
}

}  // namespace kvsim
