// BlockPool: the fixed set of KV blocks of one device, their ref counts, the prefix cache
// (hash -> blocks) and the free queue — vLLM v1's BlockPool (vllm/v1/core/block_pool.py),
// block for block: tests/core/cache/vllm_conformance_test.cc replays operation streams recorded
// from vLLM's own pool (tests/data/vllm_v1_conformance/) and must match every step. KvCacheManager
// (core/cache/kv_cache_manager.h) is its user.
//
//   block       id 0 .. num_blocks-1; holds block_size token slots of K and V (the pool does
//               not know the size, nor the bytes: core/engine/capacity.h does)
//   null block  with NullBlock::kReserved, block 0 (vLLM's null_block): never free, never
//               handed out, no ref count; num_usable_blocks() = num_blocks - 1. A device pool
//               reserves it (KvCacheManager), so ids and counts are vLLM's; a lower tier
//               (core/cache/tier_pool.h) does not: its slots never enter a block table.
//   ref count   how many block tables hold the block; 0 = free
//   hash        set when the block holds a full block registered with cache(); the prefix
//               cache maps the hash back to the block
//   free queue  every free block, in eviction order (owned by the EvictionPolicy)
//
// Several blocks may hold one hash (vLLM's BlockHashToBlockMap does not de-duplicate, so that
// block tables stay append-only): the same content computed twice — a whole-prompt hit
// recomputes its last block, two requests prefill the same text at once — gives two cached
// blocks. They form a list in the order they were cached; find() returns the earliest still
// cached, and evicting one copy leaves the others findable (the next takes over).
//
// A freed block that holds a hash stays findable by find() until it is popped for reuse;
// popping it drops the hash (that is an eviction, counted). A block found by hash while free
// is taken out of the queue and its ref count raised (touch()). Callers release a request's
// blocks tail first, so the tail of a sequence is evicted before its shared head.
//
// Invariants (check_invariants()):
//   free + used = usable; a usable block is in the free queue iff its ref count is 0, and at
//   most once; the null block never is; the prefix cache maps hash h to the earliest-cached
//   block of h, whose list of copies holds exactly the blocks whose hash is h;
//   num_cached_free_blocks() counts the free blocks with a hash.
// Every operation is O(1) amortized (fifo: O(log n)); once the free queue's rings have grown
// to the pool's working set (core/cache/free_block_queue.h), nothing allocates (the list of copies
// is sized once, when the first duplicate is cached). Every call that takes a BlockId
// KVSIM_CHECKs that it is one of this pool's ids (< num_blocks()).
//
// An EvictionSink, when set, is told the hash of every content the pool evicts — when the last
// block holding that hash is popped (an evicted copy whose twin is still cached loses nothing)
// — so that a tiered KV pool can demote the block to a lower tier instead of dropping it
// (core/cache/tier_pool.h). Without one an evicted block's content is simply gone.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/base/flat_id_map.h"
#include "core/base/huge_page_allocator.h"
#include "core/cache/block_id.h"
#include "core/cache/cache_event.h"
#include "core/cache/eviction_policy.h"

namespace kvsim {

// Receives the content hashes a BlockPool evicts (pops for reuse the last block holding them),
// in eviction order, a batch at a time: by the end of the allocate() call that evicted them.
// The hashes of one batch are distinct. It must not call back into the evicting pool.
class EvictionSink {
 public:
  virtual ~EvictionSink() = default;
  virtual void on_evicted(std::span<const BlockHash> hashes) = 0;
};

// Whether block 0 is reserved as vLLM's null block (see the header comment).
enum class NullBlock : uint8_t { kNone, kReserved };

class BlockPool {
 public:
  // All usable blocks start free, in id order (the first usable block is popped first).
  // num_blocks in [1, kMaxNumBlocks], at least 2 with a null block; `policy` was built for
  // num_blocks.
  BlockPool(uint32_t num_blocks, std::unique_ptr<EvictionPolicy> policy,
            NullBlock null_block = NullBlock::kNone);

  // Every block, the null block included (vLLM's num_gpu_blocks).
  uint32_t num_blocks() const { return static_cast<uint32_t>(blocks_.size()); }
  // The blocks that can be handed out: num_blocks, less the null block if reserved.
  uint32_t num_usable_blocks() const { return num_blocks() - first_usable_; }
  // The first usable block id: 1 with a null block, else 0.
  BlockId first_usable_block() const { return first_usable_; }
  // Blocks with ref count 0: what allocate() can hand out (cached ones are evicted on reuse).
  uint32_t num_free_blocks() const { return policy_->size(); }
  // Free blocks that still hold a hash: reusable prefix blocks.
  uint32_t num_cached_free_blocks() const { return num_cached_free_; }
  // Usable blocks with ref count > 0.
  uint32_t num_used_blocks() const { return num_usable_blocks() - num_free_blocks(); }
  // Blocks holding a hash, free or not, copies included (the prefix cache's size in blocks).
  uint32_t num_cached_blocks() const { return num_hashed_; }
  bool caches_prefixes() const { return policy_->caches_prefixes(); }
  const EvictionPolicy& policy() const { return *policy_; }

  // The earliest-cached block still holding `hash`, if any (never with prefix caching off).
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
  // Registers `hash` for the held, full `block`, after any other block holding `hash` (find()
  // keeps returning the earliest). Returns false and changes nothing when prefix caching is
  // off or the block already has a hash.
  bool cache(BlockId block, BlockHash hash);
  // vLLM's reset_prefix_cache: when no block is in use, drops every hash (no eviction is
  // counted, the sink is told nothing) and keeps the free queue's order; returns false and
  // changes nothing while any block is held. O(num_blocks log num_blocks); allocates.
  bool reset_prefix_cache();
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
  // Of those, the evictions of the last block holding their hash: the hashes an EvictionSink
  // was (or would have been) told. An evicted copy whose twin is still cached is not one.
  uint64_t num_evicted_contents() const { return num_evicted_contents_; }
  // Events (kEvict) are appended to *log while it is set; nullptr stops recording.
  void set_event_log(std::vector<CacheEvent>* log) { event_log_ = log; }
  // Evicted hashes go to *sink while it is set (nullptr: dropped). The sink must outlive the
  // pool or be reset first.
  void set_eviction_sink(EvictionSink* sink) { eviction_sink_ = sink; }

  // KVSIM_CHECKs the invariants above. O(num_blocks).
  void check_invariants() const;

 private:
  // Drops `block`'s hash (it is being reused): counted and logged. True when no other block
  // holds the hash any more (the content left the pool: the sink is told).
  bool evict(BlockId block);
  // The list of copies of one hash (see the header comment).
  void add_copy(BlockId head, BlockId block);
  void remove_copy(BlockId block);
  void check_copies(BlockId head, uint32_t* num_hashed) const;
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
  enum : uint8_t {
    kUnhashed = 0,
    kAlone = 1,       // holds `hash`, no other block does
    kWithCopies = 2,  // holds `hash` with other blocks: linked in copies_
  };
  struct BlockState {
    BlockHash hash = 0;
    uint32_t ref_count = 0;
    uint8_t hashed = kUnhashed;
  };
  // A block's place among the copies of its hash, in the order they were cached: next is the
  // later copy (kNoCopy after the last); prev the earlier one, or for the first (the one
  // cache_ names) the last, so that appending is O(1). Valid only for kWithCopies blocks.
  static constexpr BlockId kNoCopy = kNullBlock;
  struct CopyLink {
    BlockId next = kNoCopy;
    BlockId prev = kNoCopy;
  };
  std::vector<BlockState, HugePageAllocator<BlockState>> blocks_;
  FlatIdMap cache_;               // hash -> its earliest-cached block
  std::vector<CopyLink> copies_;  // empty until a second block caches a hash
  std::unique_ptr<EvictionPolicy> policy_;
  BlockId first_usable_ = 0;
  uint32_t num_hashed_ = 0;
  uint32_t num_cached_free_ = 0;
  uint64_t num_evictions_ = 0;
  uint64_t num_evicted_contents_ = 0;
  std::vector<CacheEvent>* event_log_ = nullptr;
  EvictionSink* eviction_sink_ = nullptr;
};

}  // namespace kvsim
