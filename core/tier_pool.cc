#include "core/tier_pool.h"

#include <string>

#include "core/check.h"

namespace kvsim {

StatusOr<std::unique_ptr<TierPool>> TierPool::create(std::string name, uint32_t num_slots,
                                                     std::string_view eviction) {
  if (num_slots == 0 || num_slots > kMaxNumBlocks) {
    return Status::invalid_argument("tier '" + name + "': slots must be in [1, " +
                                    std::to_string(kMaxNumBlocks) + "], got " +
                                    std::to_string(num_slots));
  }
  if (eviction == "none") {
    return Status::invalid_argument("tier '" + name +
                                    "': eviction 'none' caches nothing; use lru, lfu or fifo");
  }
  KVSIM_ASSIGN_OR_RETURN(auto policy, make_eviction_policy(eviction, num_slots));
  return std::unique_ptr<TierPool>(new TierPool(std::move(name), num_slots, std::move(policy)));
}

TierPool::TierPool(std::string name, uint32_t num_slots, std::unique_ptr<EvictionPolicy> policy)
    : name_(std::move(name)), pool_(num_slots, std::move(policy)) {}

// touch() takes the slot out of the free queue and counts a use; release() puts it back at
// the place its policy gives a block freed now.
void TierPool::refresh(BlockId slot) {
  pool_.touch(slot);
  pool_.release(slot);
}

void TierPool::store(BlockHash hash) {
  if (const std::optional<BlockId> slot = pool_.find(hash)) {
    refresh(*slot);
    ++refreshed_;
    return;
  }
  const BlockId slot = pool_.allocate();  // evicts the slot's block to the next tier, if any
  const bool cached = pool_.cache(slot, hash);
  KVSIM_CHECK(cached, "a tier slot could not take a block");
  pool_.release(slot);
  ++stored_;
}

void TierPool::hit(BlockHash hash) {
  const std::optional<BlockId> slot = pool_.find(hash);
  KVSIM_CHECK(slot.has_value(), "hit() on a block tier '" + name_ + "' does not hold");
  refresh(*slot);
  ++hit_blocks_;
}

TierStats TierPool::stats() const {
  TierStats s;
  s.stored = stored_;
  s.refreshed = refreshed_;
  s.evicted = pool_.num_evictions();
  s.hit_blocks = hit_blocks_;
  return s;
}

void TierPool::check_invariants() const {
  pool_.check_invariants();
  KVSIM_CHECK(pool_.num_used_blocks() == 0, "tier '" + name_ + "' has a slot in use at rest");
  KVSIM_CHECK(pool_.num_cached_free_blocks() == pool_.num_cached_blocks(),
              "tier '" + name_ + "' holds a block outside its free queue");
  KVSIM_CHECK(num_resident() <= num_slots(), "tier '" + name_ + "' exceeds its slots");
  KVSIM_CHECK(stored_ == uint64_t{num_resident()} + pool_.num_evictions(),
              "tier '" + name_ + "': blocks stored != resident + evicted");
}

}  // namespace kvsim
