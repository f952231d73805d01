#include "core/block_pool.h"

#include "core/check.h"

namespace kvsim {

BlockPool::BlockPool(uint32_t num_blocks, std::unique_ptr<EvictionPolicy> policy)
    : ref_counts_(num_blocks, 0),
      hashes_(num_blocks, 0),
      hashed_(num_blocks, 0),
      cache_(num_blocks),
      policy_(std::move(policy)) {
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
  KVSIM_CHECK(hashed_[block], "touch() of a block that holds no cached prefix");
  if (ref_counts_[block] == 0) {
    policy_->remove(block);
    --num_cached_free_;
  }
  ++ref_counts_[block];
  policy_->on_hit(block);
}

void BlockPool::share(BlockId block) {
  KVSIM_CHECK(ref_counts_[block] > 0, "share() of a free block");
  ++ref_counts_[block];
}

BlockId BlockPool::allocate() {
  const BlockId block = policy_->pop();
  KVSIM_CHECK(ref_counts_[block] == 0, "the free queue held a block in use");
  if (hashed_[block]) {
    --num_cached_free_;
    cache_.erase(hashes_[block]);
    hashed_[block] = 0;
    ++num_evictions_;
    if (event_log_ != nullptr) {
      CacheEvent event;
      event.kind = CacheEventKind::kEvict;
      event.block = block;
      event.hash = hashes_[block];
      event_log_->push_back(event);
    }
    if (eviction_sink_ != nullptr) eviction_sink_->on_evicted(hashes_[block]);
  }
  ref_counts_[block] = 1;
  return block;
}

void BlockPool::release(BlockId block) {
  KVSIM_CHECK(ref_counts_[block] > 0, "release() of a free block");
  if (--ref_counts_[block] > 0) return;
  policy_->push(block, hashed_[block] != 0);
  if (hashed_[block]) ++num_cached_free_;
}

bool BlockPool::cache(BlockId block, BlockHash hash) {
  KVSIM_CHECK(ref_counts_[block] > 0, "cache() of a free block");
  if (!policy_->caches_prefixes() || hashed_[block]) return false;
  if (!cache_.insert(hash, block)) return false;
  hashes_[block] = hash;
  hashed_[block] = 1;
  policy_->on_cached(block);
  return true;
}

std::optional<BlockHash> BlockPool::block_hash(BlockId block) const {
  if (!hashed_[block]) return std::nullopt;
  return hashes_[block];
}

void BlockPool::check_invariants() const {
  policy_->check_invariants();
  uint32_t num_free = 0;
  uint32_t num_cached_free = 0;
  uint32_t num_hashed = 0;
  for (BlockId block = 0; block < num_blocks(); ++block) {
    const bool free = ref_counts_[block] == 0;
    KVSIM_CHECK(free == policy_->contains(block),
                "a block is in the free queue iff its ref count is 0");
    num_free += free ? 1 : 0;
    if (hashed_[block]) {
      ++num_hashed;
      num_cached_free += free ? 1 : 0;
      KVSIM_CHECK(cache_.find(hashes_[block]) == block,
                  "a hashed block is not what the prefix cache maps its hash to");
    }
  }
  KVSIM_CHECK(num_free == policy_->size(), "free queue size differs from free blocks");
  KVSIM_CHECK(num_cached_free == num_cached_free_, "cached free block count is wrong");
  KVSIM_CHECK(num_hashed == cache_.size(), "prefix cache holds hashes of no block");
  KVSIM_CHECK(policy_->caches_prefixes() || num_hashed == 0, "a block cached with caching off");
}

}  // namespace kvsim
