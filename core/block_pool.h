// BlockPool: the fixed set of KV blocks of one device, their ref counts, the prefix cache
// (hash -> block) and the free queue. KvCacheManager (core/kv_cache_manager.h) is its user.
//
//   block       id 0 .. num_blocks-1; holds block_size token slots of K and V (the pool does
//               not know the size, nor the bytes: core/capacity.h does)
//   ref count   how many block tables hold the block; 0 = free
//   hash        set when the block holds a full block registered with cache(); the prefix
//               cache maps the hash back to the block
//   free queue  every block with ref count 0, in eviction order (owned by the EvictionPolicy)
//
// A freed block that holds a hash stays findable by find() until it is popped for reuse;
// popping it drops the hash (that is an eviction, counted). A block found by hash while free
// is taken out of the queue and its ref count raised (touch()). Callers release a request's
// blocks tail first, so the tail of a sequence is evicted before its shared head.
//
// Invariants (check_invariants()):
//   free + used = total; a block is in the free queue iff its ref count is 0, and at most once;
//   the prefix cache holds hash h -> block b iff b's hash is h (first registration wins: a
//   second block with the same content stays unhashed); num_cached_free_blocks() counts the
//   free blocks with a hash.
// Every operation is O(1) amortized (fifo: O(log n)); once the free queue's rings have grown
// to the pool's working set (core/free_block_queue.h), nothing allocates. Every call that takes
// a BlockId KVSIM_CHECKs that it is one of this pool's ids (< num_blocks()).
//
// An EvictionSink, when set, is told the hash of every cached block the pool evicts, so that
// a tiered KV pool can demote the block to a lower tier instead of dropping it
// (core/tier_pool.h). Without one an evicted block's content is simply gone.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/block_id.h"
#include "core/cache_event.h"
#include "core/eviction_policy.h"
#include "core/flat_id_map.h"

namespace kvsim {

// Receives the content hashes of the cached blocks a BlockPool evicts (pops for reuse), in
// eviction order, a batch at a time: by the end of the allocate() call that evicted them. It
// must not call back into the evicting pool.
class EvictionSink {
 public:
  virtual ~EvictionSink() = default;
  virtual void on_evicted(std::span<const BlockHash> hashes) = 0;
};

class BlockPool {
 public:
  // All blocks start free, in id order (block 0 is popped first). num_blocks in
  // [1, kMaxNumBlocks]; `policy` was built for num_blocks.
  BlockPool(uint32_t num_blocks, std::unique_ptr<EvictionPolicy> policy);

  uint32_t num_blocks() const { return static_cast<uint32_t>(blocks_.size()); }
  // Blocks with ref count 0: what allocate() can hand out (cached ones are evicted on reuse).
  uint32_t num_free_blocks() const { return policy_->size(); }
  // Free blocks that still hold a hash: reusable prefix blocks.
  uint32_t num_cached_free_blocks() const { return num_cached_free_; }
  // Blocks with ref count > 0.
  uint32_t num_used_blocks() const { return num_blocks() - num_free_blocks(); }
  // Blocks holding a hash, free or not (the prefix cache's size).
  uint32_t num_cached_blocks() const { return cache_.size(); }
  bool caches_prefixes() const { return policy_->caches_prefixes(); }
  const EvictionPolicy& policy() const { return *policy_; }

  // The block registered under `hash`, if any (never with prefix caching off).
  std::optional<BlockId> find(BlockHash hash) const;
  // A prefix hit on `block` (found by hash): ref count + 1, out of the free queue if it was
  // free, and the policy counts the hit.
  void touch(BlockId block);
  // Pops the front of the free queue (evicting its hash, if any) and returns it with ref
  // count 1. The queue must not be empty: callers check num_free_blocks() first, so that
  // their operation is all-or-nothing.
  BlockId allocate();
  // allocate() for out.size() blocks at once, in the same order (out[0] is popped first). The
  // evicted hashes' prefix-cache slots are prefetched a few blocks ahead, so a large
  // allocation's cache misses overlap; the result is that of out.size() allocate() calls.
  void allocate(std::span<BlockId> out);
  // Another block table takes the held `block` (fork): ref count + 1. Not a prefix hit.
  void share(BlockId block);
  // Ref count - 1; at 0 the block joins the free queue (findable while it keeps its hash).
  void release(BlockId block);
  // Registers `hash` for the held, full `block`. Returns false and changes nothing when
  // prefix caching is off, the block already has a hash, or another block holds `hash`.
  bool cache(BlockId block, BlockHash hash);
  // Prefetches where find(hash) and cache(_, hash) look (a loop over many hashes calls it a
  // few hashes ahead). Changes nothing.
  void prefetch_cache_slot_of(BlockHash hash) const { cache_.prefetch(hash); }

  uint32_t ref_count(BlockId block) const {
    check_id(block);
    return blocks_[block].ref_count;
  }
  std::optional<BlockHash> block_hash(BlockId block) const;
  // The free blocks, next to be reused first.
  void eviction_order(std::vector<BlockId>* out) const { policy_->eviction_order(out); }

  // Cached blocks popped for reuse since construction.
  uint64_t num_evictions() const { return num_evictions_; }
  // Events (kEvict) are appended to *log while it is set; nullptr stops recording.
  void set_event_log(std::vector<CacheEvent>* log) { event_log_ = log; }
  // Evicted hashes go to *sink while it is set (nullptr: dropped). The sink must outlive the
  // pool or be reset first.
  void set_eviction_sink(EvictionSink* sink) { eviction_sink_ = sink; }

  // KVSIM_CHECKs the invariants above. O(num_blocks).
  void check_invariants() const;

 private:
  // Drops `block`'s hash (it is being reused): counted and logged; the hash is returned.
  BlockHash evict(BlockId block);
  void send_to_sink(std::span<const BlockHash> hashes);
  // Checks that a caller's `block` is one of this pool's ids (the ids the free queue hands out
  // are in range by construction). One compare inline; the failing KVSIM_CHECK and its message
  // are out of line (cold), so the hot callers carry no message-building code.
  void check_id(BlockId block) const {
    if (block >= blocks_.size()) [[unlikely]]
      fail_out_of_range(block);
  }
  [[noreturn]] [[gnu::cold]] void fail_out_of_range(BlockId block) const;
  void prefetch_cache_slot(BlockId block) const {
    if (blocks_[block].hashed) cache_.prefetch(blocks_[block].hash);
  }

  // One record per block, so that a block's state is one cache line (the pool's blocks are
  // touched in eviction order, which is random in a large pool or tier).
  struct BlockState {
    BlockHash hash = 0;
    uint32_t ref_count = 0;
    uint8_t hashed = 0;  // 1 when hash is registered in cache_
  };
  std::vector<BlockState> blocks_;
  FlatIdMap cache_;  // hash -> block
  std::unique_ptr<EvictionPolicy> policy_;
  uint32_t num_cached_free_ = 0;
  uint64_t num_evictions_ = 0;
  std::vector<CacheEvent>* event_log_ = nullptr;
  EvictionSink* eviction_sink_ = nullptr;
};

}  // namespace kvsim
