#include "core/block_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/check.h"

namespace kvsim {

BlockPool::BlockPool(uint32_t num_blocks, std::unique_ptr<EvictionPolicy> policy)
    : blocks_(num_blocks), cache_(num_blocks), policy_(std::move(policy)) {
  KVSIM_CHECK(num_blocks >= 1 && num_blocks <= kMaxNumBlocks, "pool size out of range");
  KVSIM_CHECK(policy_ != nullptr, "BlockPool needs an eviction policy");
  for (BlockId block = 0; block < num_blocks; ++block) policy_->push(block, false);
}

std::optional<BlockId> BlockPool::find(BlockHash hash) const {
  const uint32_t block = cache_.find(hash);
  if (block == FlatIdMap::kEmpty) return std::nullopt;
  return block;
}

void BlockPool::touch(BlockId block) {
  check_id(block);
  KVSIM_CHECK(blocks_[block].hashed, "touch() of a block that holds no cached prefix");
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
  if (blocks_[block].hashed) {
    const BlockHash hash = evict(block);
    send_to_sink(std::span(&hash, 1));
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
    if (!blocks_[block].hashed) continue;
    evicted[num_evicted++] = evict(block);
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

BlockHash BlockPool::evict(BlockId block) {
  --num_cached_free_;
  cache_.erase(blocks_[block].hash);
  blocks_[block].hashed = 0;
  ++num_evictions_;
  if (event_log_ != nullptr) {
    CacheEvent event;
    event.kind = CacheEventKind::kEvict;
    event.block = block;
    event.hash = blocks_[block].hash;
    event_log_->push_back(event);
  }
  return blocks_[block].hash;
}

void BlockPool::release(BlockId block) {
  check_id(block);
  KVSIM_CHECK(blocks_[block].ref_count > 0, "release() of a free block");
  if (--blocks_[block].ref_count > 0) return;
  policy_->push(block, blocks_[block].hashed != 0);
  if (blocks_[block].hashed) ++num_cached_free_;
}

bool BlockPool::cache(BlockId block, BlockHash hash) {
  check_id(block);
  KVSIM_CHECK(blocks_[block].ref_count > 0, "cache() of a free block");
  if (!policy_->caches_prefixes() || blocks_[block].hashed) return false;
  if (!cache_.insert(hash, block)) return false;
  blocks_[block].hash = hash;
  blocks_[block].hashed = 1;
  policy_->on_cached(block);
  return true;
}

std::optional<BlockHash> BlockPool::block_hash(BlockId block) const {
  check_id(block);
  if (!blocks_[block].hashed) return std::nullopt;
  return blocks_[block].hash;
}

void BlockPool::fail_out_of_range(BlockId block) const {
  KVSIM_CHECK(false, fmt::format("block id {} out of range: the pool has {} blocks", block,
                                 blocks_.size()));
}

void BlockPool::check_invariants() const {
  policy_->check_invariants();
  uint32_t num_free = 0;
  uint32_t num_cached_free = 0;
  uint32_t num_hashed = 0;
  for (BlockId block = 0; block < num_blocks(); ++block) {
    const bool free = blocks_[block].ref_count == 0;
    KVSIM_CHECK(free == policy_->contains(block),
                "a block is in the free queue iff its ref count is 0");
    num_free += free ? 1 : 0;
    if (blocks_[block].hashed) {
      ++num_hashed;
      num_cached_free += free ? 1 : 0;
      KVSIM_CHECK(cache_.find(blocks_[block].hash) == block,
                  "a hashed block is not what the prefix cache maps its hash to");
    }
  }
  KVSIM_CHECK(num_free == policy_->size(), "free queue size differs from free blocks");
  KVSIM_CHECK(num_cached_free == num_cached_free_, "cached free block count is wrong");
  KVSIM_CHECK(num_hashed == cache_.size(), "prefix cache holds hashes of no block");
  KVSIM_CHECK(policy_->caches_prefixes() || num_hashed == 0, "a block cached with caching off");
}

}  // namespace kvsim
