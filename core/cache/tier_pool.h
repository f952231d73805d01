// TierPool: one lower tier of a tiered KV pool (host DRAM, SSD, a remote store) — a fixed
// number of slots holding cached prefix entries, found by their content hash. An entry is
// the tier's unit of storage: one KV block, or one chunk of consecutive blocks keyed by the
// hash of its last block (simulator/cluster/kv_tiers.h decides; the tier does not know, and
// stores, finds, evicts and counts entries).
//
//   HBM (the device's BlockPool) --evict--> tier 1 --evict--> tier 2 --evict--> dropped
//
// An entry arrives by its hash (put(); on_evicted: a TierPool is the EvictionSink of the pool
// above it). It is stored in a slot popped off this tier's own BlockPool, so the order in
// which a tier evicts is the same EvictionPolicy machinery the device uses (lru, lfu, fifo,
// core/cache/eviction_policy.h); popping a slot that holds an entry evicts that entry, which goes
// on to the next tier (set_next) or, at the last tier, is dropped. An entry that is already
// here is refreshed instead of stored twice: it takes its place at the back of the eviction
// order, as a prefix hit does.
//
// Tiers are non-exclusive: a prefix hit in a lower tier loads a copy into HBM (the simulator
// times the load) and the tier keeps its own, so KV can sit in HBM and below at once.
// No block table ever holds a lower-tier slot: every slot is free at rest (ref count 0), a
// stored entry is a cached free block of the tier's pool.
//
// Invariants (check_invariants()): the pool's own; every slot is free; the conservation of
// entries: stored = resident + evicted (an entry that entered the tier is still here or left
// it by eviction), resident <= slots.
// Every operation is O(1) amortized (fifo: O(log n)) and, in steady state, allocates nothing;
// memory is ~50 bytes per slot (the pool's records, its free queue and the hash -> slot map).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/cache/block_pool.h"

namespace kvsim {

// What a tier did since it was built, in entries (blocks, or chunks of blocks).
struct TierStats {
  uint64_t stored = 0;     // entries placed in a slot (arrived and were new)
  uint64_t refreshed = 0;  // entries that arrived and were already here
  uint64_t evicted = 0;    // entries pushed out to make room (sent below, or dropped)
  uint64_t hits = 0;       // prefix hits on entries found here (each loaded into HBM)
};

class TierPool final : public EvictionSink {
 public:
  // A tier of `num_slots` slots (>= 1) evicting in the order of policy `eviction` (lru, lfu or
  // fifo; none caches nothing, so a tier refuses it).
  static StatusOr<std::unique_ptr<TierPool>> create(std::string name, uint32_t num_slots,
                                                    EvictionKind eviction);

  const std::string& name() const { return name_; }
  std::string_view eviction() const { return pool_.policy().name(); }
  uint32_t num_slots() const { return pool_.num_blocks(); }
  // Entries held now.
  uint32_t num_resident() const { return pool_.num_cached_blocks(); }

  TierPool(const TierPool&) = delete;  // the pool points at outbox_
  TierPool& operator=(const TierPool&) = delete;

  // The tier below: entries this tier evicts go there (nullptr: dropped).
  void set_next(EvictionSink* next) { next_ = next; }

  // Entries arriving together (distinct hashes, in arrival order: what the tier above evicted,
  // or a write-through copy), stored a batch of up to min(kMaxBatch, slots) at a time, as a
  // batched put into a KV store does: the entries already here are refreshed, room is made
  // for the rest in this tier's eviction order (what it evicts goes below, a batch at a
  // time), and then every entry of the batch takes its place in arrival order. So a batch
  // never evicts one of its own entries: stored one at a time, an entry could be pushed out by
  // a later entry of the same batch. Batching lets the lookups and evictions overlap their
  // cache misses (prefetched). Returns how many entries were new (stored, not refreshed).
  uint64_t put(std::span<const BlockHash> hashes);
  // EvictionSink: put() of what the pool above evicted.
  void on_evicted(std::span<const BlockHash> hashes) override { put(hashes); }
  // One entry: stored, or refreshed when already here.
  void store(BlockHash hash);
  bool contains(BlockHash hash) const { return pool_.find(hash).has_value(); }
  // Prefetches where contains(hash) looks (loops call it a few hashes ahead).
  void prefetch(BlockHash hash) const { pool_.prefetch_cache_slot_of(hash); }
  // A prefix hit on a resident entry: counted, and the entry moves to the back of the
  // eviction order (lru) or gains a use (lfu). Checked: the entry is resident.
  void hit(BlockHash hash);

  TierStats stats() const;
  // KVSIM_CHECKs the invariants above. O(slots).
  void check_invariants() const;

 private:
  // Holds the pool's evictions of one batch (at most one per entry stored) until they go on.
  static constexpr size_t kMaxBatch = 64;
  class Outbox final : public EvictionSink {
   public:
    void on_evicted(std::span<const BlockHash> hashes) override;
    void send(EvictionSink* next);

   private:
    std::array<BlockHash, kMaxBatch> hashes_{};
    size_t size_ = 0;
  };

  TierPool(std::string name, uint32_t num_slots, std::unique_ptr<EvictionPolicy> policy);
  void refresh(BlockId slot);
  // Returns the entries stored; what it evicts waits in outbox_.
  uint64_t store_batch(std::span<const BlockHash> hashes);

  std::string name_;
  BlockPool pool_;
  Outbox outbox_;
  EvictionSink* next_ = nullptr;
  uint64_t stored_ = 0;
  uint64_t refreshed_ = 0;
  uint64_t hits_ = 0;
};

}  // namespace kvsim
