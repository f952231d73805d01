#include "core/cache/tier_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "core/base/check.h"
#include "core/base/prefetch.h"

namespace kvsim {

StatusOr<std::unique_ptr<TierPool>> TierPool::create(std::string name, uint32_t num_slots,
                                                     EvictionKind eviction) {
  if (num_slots == 0 || num_slots > kMaxNumBlocks) {
    return Status::invalid_argument(
        fmt::format("tier '{}': slots must be in [1, {}], got {}", name, kMaxNumBlocks, num_slots));
  }
  if (eviction == EvictionKind::kNone) {
    return Status::invalid_argument("tier '" + name +
                                    "': eviction 'none' caches nothing; use lru, lfu or fifo");
  }
  auto policy = make_eviction_policy(eviction, num_slots);
  return std::unique_ptr<TierPool>(new TierPool(std::move(name), num_slots, std::move(policy)));
}

TierPool::TierPool(std::string name, uint32_t num_slots, std::unique_ptr<EvictionPolicy> policy)
    : name_(std::move(name)), pool_(num_slots, std::move(policy)) {
  pool_.set_eviction_sink(&outbox_);
}

void TierPool::Outbox::on_evicted(std::span<const BlockHash> hashes) {
  KVSIM_CHECK(size_ + hashes.size() <= hashes_.size(), "a tier evicted more than its batch stored");
  std::copy(hashes.begin(), hashes.end(), hashes_.begin() + size_);
  size_ += hashes.size();
}

void TierPool::Outbox::send(EvictionSink* next) {
  if (next != nullptr && size_ > 0) next->on_evicted(std::span(hashes_.data(), size_));
  size_ = 0;
}

// touch() takes the slot out of the free queue and counts a use; release() puts it back at
// the place its policy gives a block freed now.
void TierPool::refresh(BlockId slot) {
  pool_.touch(slot);
  pool_.release(slot);
}

void TierPool::store(BlockHash hash) { put(std::span(&hash, 1)); }

uint64_t TierPool::put(std::span<const BlockHash> hashes) {
  const size_t batch = std::min<size_t>(kMaxBatch, num_slots());
  uint64_t num_new = 0;
  for (size_t first = 0; first < hashes.size(); first += batch) {
    num_new += store_batch(hashes.subspan(first, std::min(batch, hashes.size() - first)));
    outbox_.send(next_);
  }
  return num_new;
}

// Three passes over at most min(kMaxBatch, slots) distinct hashes: look each up (prefetched a
// few ahead; a resident one is taken out of the eviction order), make room for the new ones
// with one allocate() (its evictions wait in outbox_), then put every block back in arrival
// order. Held blocks cannot be evicted by the batch, nor can the batch's new ones.
uint64_t TierPool::store_batch(std::span<const BlockHash> hashes) {
  std::array<BlockId, kMaxBatch> slots;
  std::array<bool, kMaxBatch> resident;
  std::array<BlockId, kMaxBatch> room;
  size_t num_new = 0;
  const auto prefetch = [&](size_t i) { pool_.prefetch_cache_slot_of(hashes[i]); };
  for (size_t i = 0; i < hashes.size(); ++i) {
    prefetch_ahead<16>(i, 0, hashes.size(), prefetch);
    const std::optional<BlockId> slot = pool_.find(hashes[i]);
    resident[i] = slot.has_value();
    if (resident[i]) {
      pool_.touch(*slot);
      slots[i] = *slot;
    } else {
      ++num_new;
    }
  }
  pool_.allocate(std::span(room.data(), num_new));
  for (size_t i = 0, k = 0; i < hashes.size(); ++i) {
    if (resident[i]) continue;
    slots[i] = room[k++];
    const bool cached = pool_.cache(slots[i], hashes[i]);
    KVSIM_CHECK(cached, "a batch of entries for tier '" + name_ + "' repeated one");
  }
  refreshed_ += hashes.size() - num_new;
  stored_ += num_new;
  for (size_t i = 0; i < hashes.size(); ++i) pool_.release(slots[i]);
  return num_new;
}

void TierPool::hit(BlockHash hash) {
  const std::optional<BlockId> slot = pool_.find(hash);
  KVSIM_CHECK(slot.has_value(), "hit() on an entry tier '" + name_ + "' does not hold");
  refresh(*slot);
  ++hits_;
}

TierStats TierPool::stats() const {
  TierStats s;
  s.stored = stored_;
  s.refreshed = refreshed_;
  s.evicted = pool_.num_evictions();
  s.hits = hits_;
  return s;
}

void TierPool::check_invariants() const {
  pool_.check_invariants();
  KVSIM_CHECK(pool_.num_used_blocks() == 0, "tier '" + name_ + "' has a slot in use at rest");
  KVSIM_CHECK(pool_.num_cached_free_blocks() == pool_.num_cached_blocks(),
              "tier '" + name_ + "' holds an entry outside its free queue");
  KVSIM_CHECK(num_resident() <= num_slots(), "tier '" + name_ + "' exceeds its slots");
  KVSIM_CHECK(stored_ == uint64_t{num_resident()} + pool_.num_evictions(),
              "tier '" + name_ + "': entries stored != resident + evicted");
}

}  // namespace kvsim
