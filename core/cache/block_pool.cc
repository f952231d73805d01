#include "core/cache/block_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/base/check.h"

namespace kvsim {

BlockPool::BlockPool(uint32_t num_blocks, std::unique_ptr<EvictionPolicy> policy,
                     NullBlock null_block)
    : blocks_(num_blocks),
      cache_(num_blocks),
      policy_(std::move(policy)),
      first_usable_(null_block == NullBlock::kReserved ? kReservedNullBlock + 1 : 0) {
  KVSIM_CHECK(num_blocks > first_usable_ && num_blocks <= kMaxNumBlocks, "pool size out of range");
  KVSIM_CHECK(policy_ != nullptr, "BlockPool needs an eviction policy");
  for (BlockId block = first_usable_; block < num_blocks; ++block) policy_->push(block, false);
}

std::optional<BlockId> BlockPool::find(BlockHash hash) const {
  const uint32_t block = cache_.find(hash);
  if (block == FlatIdMap::kEmpty) return std::nullopt;
  return block;
}

void BlockPool::touch(BlockId block) {
  check_id(block);
  KVSIM_CHECK(blocks_[block].hashed != kUnhashed, "touch() of a block that holds no cached prefix");
  if (blocks_[block].ref_count == 0) {
    policy_->remove(block);
    --num_cached_free_;
  }
  ++blocks_[block].ref_count;
  policy_->on_hit(block);
}

void BlockPool::share(BlockId block) {
  check_id(block);
  KVSIM_CHECK(blocks_[block].ref_count > 0, "share() of a free block");
  ++blocks_[block].ref_count;
}

BlockId BlockPool::allocate() {
  const BlockId block = policy_->pop();  // checks that the queue is not empty
  KVSIM_CHECK(blocks_[block].ref_count == 0, "the free queue held a block in use");
  blocks_[block].ref_count = 1;
  if (blocks_[block].hashed != kUnhashed && evict(block)) {
    send_to_sink(std::span(&blocks_[block].hash, 1));
  }
  return block;
}

void BlockPool::allocate(std::span<BlockId> out) {
  KVSIM_CHECK(out.size() <= num_free_blocks(), "allocate() of more blocks than are free");
  // Popping first is what out.size() allocate() calls do: eviction does not touch the queue.
  for (BlockId& block : out) block = policy_->pop();
  // Two-stage prefetch: a block's record kAhead blocks ahead, and the prefix-cache slot of its
  // hash once the record has arrived, half as far ahead.
  constexpr size_t kAhead = 32;
  constexpr size_t kSinkBatch = 64;
  std::array<BlockHash, kSinkBatch> evicted;
  size_t num_evicted = 0;
  for (size_t i = 0; i < std::min(kAhead, out.size()); ++i) prefetch_line(&blocks_[out[i]]);
  for (size_t i = 0; i < std::min(kAhead / 2, out.size()); ++i) prefetch_cache_slot(out[i]);
  for (size_t i = 0; i < out.size(); ++i) {
    if (i + kAhead < out.size()) prefetch_line(&blocks_[out[i + kAhead]]);
    if (i + kAhead / 2 < out.size()) prefetch_cache_slot(out[i + kAhead / 2]);
    const BlockId block = out[i];
    KVSIM_CHECK(blocks_[block].ref_count == 0, "the free queue held a block in use");
    blocks_[block].ref_count = 1;
    if (blocks_[block].hashed == kUnhashed || !evict(block)) continue;
    evicted[num_evicted++] = blocks_[block].hash;
    if (num_evicted == kSinkBatch) {
      send_to_sink(std::span(evicted.data(), num_evicted));
      num_evicted = 0;
    }
  }
  send_to_sink(std::span(evicted.data(), num_evicted));
}

void BlockPool::send_to_sink(std::span<const BlockHash> hashes) {
  if (eviction_sink_ != nullptr && !hashes.empty()) eviction_sink_->on_evicted(hashes);
}

bool BlockPool::evict(BlockId block) {
  const bool last_copy = blocks_[block].hashed == kAlone;
  if (last_copy) {
    cache_.erase(blocks_[block].hash);
  } else {
    remove_copy(block);
  }
  blocks_[block].hashed = kUnhashed;
  --num_cached_free_;
  --num_hashed_;
  ++num_evictions_;
  if (event_log_ != nullptr) {
    CacheEvent event;
    event.kind = CacheEventKind::kEvict;
    event.block = block;
    event.hash = blocks_[block].hash;
    event_log_->push_back(event);
  }
  if (last_copy) ++num_evicted_contents_;
  return last_copy;
}

// Appends `block` to the copies of the hash whose earliest-cached block is `head`.
void BlockPool::add_copy(BlockId head, BlockId block) {
  if (copies_.empty()) copies_.resize(blocks_.size());
  if (blocks_[head].hashed == kAlone) {
    copies_[head] = {kNoCopy, head};
    blocks_[head].hashed = kWithCopies;
  }
  const BlockId last = copies_[head].prev;
  copies_[last].next = block;
  copies_[block] = {kNoCopy, last};
  copies_[head].prev = block;
  blocks_[block].hashed = kWithCopies;
}

// Unlinks `block` from the copies of its hash; the next copy takes over when it was the
// earliest. A copy left alone becomes kAlone again.
void BlockPool::remove_copy(BlockId block) {
  const BlockHash hash = blocks_[block].hash;
  const CopyLink link = copies_[block];
  BlockId head = cache_.find(hash);
  if (block == head) {
    head = link.next;
    copies_[head].prev = link.prev;  // the last copy
    cache_.replace(hash, head);
  } else {
    copies_[link.prev].next = link.next;
    copies_[link.next == kNoCopy ? head : link.next].prev = link.prev;
  }
  if (copies_[head].next == kNoCopy) blocks_[head].hashed = kAlone;
}

void BlockPool::release(BlockId block) {
  check_id(block);
  KVSIM_CHECK(blocks_[block].ref_count > 0, "release() of a free block");
  if (--blocks_[block].ref_count > 0) return;
  const bool cached = blocks_[block].hashed != kUnhashed;
  policy_->push(block, cached);
  if (cached) ++num_cached_free_;
}

bool BlockPool::cache(BlockId block, BlockHash hash) {
  check_id(block);
  KVSIM_CHECK(blocks_[block].ref_count > 0, "cache() of a free block");
  if (!policy_->caches_prefixes() || blocks_[block].hashed != kUnhashed) return false;
  blocks_[block].hash = hash;
  if (cache_.insert(hash, block)) {
    blocks_[block].hashed = kAlone;
  } else {
    add_copy(cache_.find(hash), block);
  }
  ++num_hashed_;
  policy_->on_cached(block);
  return true;
}

bool BlockPool::reset_prefix_cache() {
  if (num_used_blocks() > 0) return false;
  std::vector<BlockId> order;
  policy_->eviction_order(&order);
  // Out of the queue and back in the same order, every block now empty: the order is kept
  // (lfu and fifo rank empty blocks by the order they arrive in).
  for (BlockId block : order) policy_->remove(block);
  for (BlockId block : order) {
    blocks_[block].hashed = kUnhashed;
    policy_->push(block, false);
  }
  cache_ = FlatIdMap(num_blocks());
  copies_.clear();
  num_hashed_ = 0;
  num_cached_free_ = 0;
  return true;
}

std::optional<BlockHash> BlockPool::block_hash(BlockId block) const {
  check_id(block);
  if (blocks_[block].hashed == kUnhashed) return std::nullopt;
  return blocks_[block].hash;
}

void BlockPool::fail_out_of_range(BlockId block) const {
  KVSIM_CHECK(false, fmt::format("block id {} out of range: the pool has {} blocks", block,
                                 blocks_.size()));
}

void BlockPool::check_invariants() const {
  policy_->check_invariants();
  KVSIM_CHECK(first_usable_ == 0 || (blocks_[kReservedNullBlock].ref_count == 0 &&
                                     blocks_[kReservedNullBlock].hashed == kUnhashed &&
                                     !policy_->contains(kReservedNullBlock)),
              "the null block was handed out, cached or freed");
  uint32_t num_free = 0;
  uint32_t num_cached_free = 0;
  uint32_t num_hashed = 0;
  uint32_t num_heads = 0;
  for (BlockId block = first_usable_; block < num_blocks(); ++block) {
    const bool free = blocks_[block].ref_count == 0;
    KVSIM_CHECK(free == policy_->contains(block),
                "a block is in the free queue iff its ref count is 0");
    num_free += free ? 1 : 0;
    if (blocks_[block].hashed == kUnhashed) continue;
    num_cached_free += free ? 1 : 0;
    if (cache_.find(blocks_[block].hash) != block) continue;  // checked from its list's head
    ++num_heads;
    check_copies(block, &num_hashed);
  }
  KVSIM_CHECK(num_free == policy_->size(), "free queue size differs from free blocks");
  KVSIM_CHECK(num_cached_free == num_cached_free_, "cached free block count is wrong");
  KVSIM_CHECK(num_heads == cache_.size(), "prefix cache holds hashes of no block");
  KVSIM_CHECK(num_hashed == num_hashed_,
              "a hashed block is not among the copies the prefix cache finds for its hash");
  KVSIM_CHECK(policy_->caches_prefixes() || num_hashed == 0, "a block cached with caching off");
}

// Walks the copies of the hash whose earliest-cached block is `head`, adding them to
// *num_hashed.
void BlockPool::check_copies(BlockId head, uint32_t* num_hashed) const {
  ++*num_hashed;
  if (blocks_[head].hashed == kAlone) return;
  const BlockHash hash = blocks_[head].hash;
  BlockId prev = head;
  uint32_t length = 1;
  for (BlockId block = copies_[head].next; block != kNoCopy; block = copies_[block].next) {
    KVSIM_CHECK(length++ < num_blocks(), "the copies of a hash form a cycle");
    KVSIM_CHECK(blocks_[block].hashed == kWithCopies && blocks_[block].hash == hash,
                "a listed copy does not hold the hash");
    KVSIM_CHECK(copies_[block].prev == prev, "the copies' back links are broken");
    prev = block;
    ++*num_hashed;
  }
  KVSIM_CHECK(length >= 2, "a block with copies has none");
  KVSIM_CHECK(copies_[head].prev == prev, "the first copy does not name the last");
}

}  // namespace kvsim
