// KvCacheManager: per-request block tables over one BlockPool — the paged KV cache that the
// simulator's scheduler allocates against and the kernels' paged attention reads.
//
// The scheduler asks, the manager answers (vLLM v1's KVCacheManager with one full-attention
// group; tests/core/cache/vllm_conformance_test.cc replays streams recorded from vLLM's own manager
// and matches them block for block: ids handed out, hits, free-queue order, evictions, free
// counts). The pool reserves block 0 as vLLM's null block: of KvCacheConfig::num_blocks,
// num_blocks - 1 are usable, ids 1 .. num_blocks-1. Requests are integer
// ids; a request's prompt content is given as prefix block hashes (core/cache/prefix_hash.h), so
// trace requests without token ids work the same as tokenised ones. Life of a request:
//
//   add_request(id, prompt tokens, prompt block hashes)   waiting, holds nothing
//   get_computed_blocks(id) -> hit                          longest cached prefix (no change)
//   allocate_slots(id, n, hit) -> allocation                a prefill chunk after the hit's
//                                                           blocks (taken first); empty
//                                                           optional = no room
//   allocate_slots(id, n) -> allocation                     a chunk or decode token (n = 1)
//   append_block_hashes(id, hashes)                         content of blocks filled by decode
//   fork(id, child)                                         parallel sampling / beam search
//   preempt(id[, tokens])  or  swap_out(id) ... swap_in(id) preemption by recompute / by swap
//   free(id)                                                finished
//
// allocate_slots for a request that already holds num_tokens slots:
//
//   |<------------------------- num_tokens after the call ------------------------->|
//   |<-- prefix hit -->|<------ held before the call ------>|<--- num_new_tokens --->|
//   | touched blocks   | held blocks (the last may be partial) | new blocks           |
//   ^ only when the request held nothing       copy-on-write ^ when the partial last
//                                                              block is shared (fork)
//
//   needed blocks = new blocks + (1 if copy-on-write) + (hit blocks that were free)
//
//   Lookahead slots (vLLM's num_lookahead_tokens, speculative decoding's draft tokens): the
//   table grows to cover num_tokens + lookahead, but num_tokens counts only the computed ones
//   and only blocks full of those are offered to the prefix cache; blocks already held past
//   num_tokens serve later calls before new ones are popped.
//   It succeeds iff needed <= free blocks + blocks the retention trim frees first; else it
//   returns an empty optional and changes nothing.
//
// Rules the manager keeps:
//   - All-or-nothing: allocate_slots, swap_out and swap_in either do everything or return an
//     empty optional and change nothing. "No room" is not an error; the caller preempts.
//   - Tail first: free, preempt, swap_out and retention trims release blocks from the end
//     of the block table towards the start, so a sequence's tail is evicted before its head.
//   - Full blocks whose hash is known are registered in the prefix cache as soon as their
//     slots are allocated (as vLLM does), so a later request can hit them.
//   - A whole-prompt hit still leaves the last block to compute: at least one prompt token
//     is always computed (its logits are needed), so a hit covers at most
//     (prompt tokens - 1) / block_size blocks.
//   - Copy-on-write: appending into a partially filled block that another table shares copies
//     it first (SlotAllocation::copy says which block to copy; the copies are counted).
//   - Retention (KvCacheConfig::retention, or trim()): a block none of whose positions the
//     policy keeps is dropped from the table (the entry becomes kNullBlock) and released.
//     The automatic trim in allocate_slots works on the tokens held before the call (the
//     computed ones), so no token of the step is cut off from a position it attends to.
//   - Swap: swap_out copies the request's blocks to a host tier of its own capacity (in
//     blocks) and releases them; swap_in brings them back, reusing a block that is still
//     cached on the device instead of copying it. Bytes = blocks x bytes_per_block.
//
// Where kvsim differs from vLLM v1 on purpose (the conformance test works around each):
//   - Prefix statistics: vLLM's PrefixCacheStats count at every get_computed_blocks, so a
//     request the scheduler retries is counted again each step, and preempted requests go to
//     a separate bucket; kvsim counts once per allocation of a request holding nothing
//     (num_prefix_query_tokens / num_prefix_hit_tokens), which is a property of the workload,
//     not of how often a scheduler retried.
//   - The full-sequence admission gate (vLLM's scheduler_reserve_full_isl: room for the whole
//     prompt before a chunk is admitted) is a scheduler rule, not the manager's:
//     allocate_slots checks only the tokens it is given.
//   - No KV connector tokens; instead kvsim has fork with copy-on-write, swap to a host tier
//     and retention trims, which vLLM v1 lacks. A request holding lookahead slots cannot be
//     forked (nothing combines speculative decoding with parallel sampling here).
//   - The hit cap counts the tokens the manager knows: the prompt, the slots held, and what
//     preempt(id, num_known_tokens) was told. vLLM counts every token of the request,
//     including a sampled token that never got a slot; a caller that preempts a request with
//     such a token pending passes its count, or the cap can be a block lower than vLLM's.
//
// Invariants (check_invariants()): the pool's (free + used = total, queue and prefix cache
// agree, no block in two places) and: every block's ref count equals the number of block
// table entries holding it; a table has ceil(num_tokens / block_size) entries and its last
// entry holds a block; the host tier holds exactly the blocks of swapped-out requests and no
// more than its capacity. Freeing every request leaves every block free.
//
// Cost: every operation is O(blocks it touches) (x log n with fifo eviction; trim() with
// scores is O(positions held)) and allocates no memory once the per-request vectors have grown
// (requests' state slots are recycled); nothing iterates a hash map.
// Not thread-safe; one manager per simulated device.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/base/flat_id_map.h"
#include "core/base/status.h"
#include "core/cache/block_id.h"
#include "core/cache/block_pool.h"
#include "core/cache/cache_event.h"
#include "core/cache/eviction_policy.h"
#include "core/cache/prefix_hash.h"
#include "core/cache/retention_policy.h"

namespace kvsim {

struct KvCacheConfig {
  // Device blocks (CapacityResult::num_blocks, vLLM's num_gpu_blocks), >= 2. Block 0 is the
  // null block, so num_usable_blocks() are lent out.
  uint32_t num_blocks = 0;
  uint32_t block_size = 16;  // tokens per block (CapacityResult::block_size), >= 1
  EvictionKind eviction = EvictionKind::kLru;  // kNone: prefix caching off
  uint32_t num_host_blocks = 0;  // host tier for swap, in blocks; 0 = swapping always fails
  // Bytes one block moves when swapped (CapacityResult::kv_bytes_per_block: core/engine/capacity.h
  // is the one place that computes it, quantized storage included). 0 counts no bytes.
  uint64_t bytes_per_block = 0;
  // Applied by allocate_slots as sequences grow; null or "full" keeps everything.
  std::shared_ptr<const RetentionPolicy> retention;
  uint32_t expected_requests = 64;  // sizing hint for the request table; it grows as needed

  // The blocks requests can hold: num_blocks less the null block.
  uint32_t num_usable_blocks() const { return num_blocks > 0 ? num_blocks - 1 : 0; }
};

// The longest cached prefix of a waiting request: its blocks, as get_computed_blocks() found
// them. allocate_slots() takes them by id and checks that each still holds the content it was
// found for (the hit is stale once the pool has changed in between: a KVSIM_CHECK, not UB).
struct PrefixHit {
  // The hit's blocks, in prompt order. For a sliding-window group of a hybrid model
  // (core/cache/kv_cache_coordinator.h) the entries the window no longer reaches are kNullBlock.
  std::vector<BlockId> blocks;
  uint64_t num_tokens = 0;  // blocks.size() x block_size
  // Hit blocks that are free now (cached, ref count 0): taking them uses free blocks, so
  // allocate_slots with this hit needs new blocks + num_free_blocks free blocks.
  uint32_t num_free_blocks = 0;
  // Hybrid models only (core/cache/kv_cache_coordinator.h): the hit in the groups after the first,
  // num_blocks() entries per group, concatenated; num_free_blocks counts their free blocks too.
  std::vector<BlockId> group_blocks;

  uint32_t num_blocks() const { return static_cast<uint32_t>(blocks.size()); }
  // Empties the hit, keeping the vector's capacity (a scheduler reuses one PrefixHit).
  void clear() {
    blocks.clear();
    num_tokens = 0;
    num_free_blocks = 0;
    group_blocks.clear();
  }
};

// A copy the kernels must perform before writing: the first num_tokens slots of block `src`
// into block `dst` (copy-on-write of a shared, partially filled block).
struct BlockCopy {
  BlockId src = kNullBlock;
  BlockId dst = kNullBlock;
  uint32_t num_tokens = 0;
};

// What one successful allocate_slots did.
struct SlotAllocation {
  uint32_t num_hit_blocks = 0;      // prefix-hit blocks taken into the table
  uint32_t num_new_blocks = 0;      // blocks popped off the free queue (copy target included)
  uint32_t num_trimmed_blocks = 0;  // blocks the retention policy dropped first
  std::optional<BlockCopy> copy;    // copy-on-write to perform before writing new tokens
};

// Counters for time series and reports. used + cached_free + empty_free = num_blocks.
struct KvCacheStats {
  uint32_t num_blocks = 0;              // usable blocks (the null block is not counted)
  uint32_t num_used_blocks = 0;         // ref count > 0
  uint32_t num_cached_free_blocks = 0;  // free, still holding a reusable prefix block
  uint32_t num_empty_free_blocks = 0;   // free, nothing reusable
  uint32_t num_requests = 0;            // requests added and not yet freed
  uint32_t num_host_blocks = 0;         // host tier capacity
  uint32_t num_host_used_blocks = 0;
  uint64_t num_prefix_query_tokens = 0;  // sequence tokens of allocations that looked up a hit
  uint64_t num_prefix_hit_tokens = 0;    // tokens taken from the prefix cache
  uint64_t num_evictions = 0;            // cached blocks popped for reuse
  uint64_t num_cow_copies = 0;           // copy-on-write block copies
  uint64_t num_trimmed_blocks = 0;       // blocks dropped by retention
  uint64_t num_preemptions = 0;          // preempt() calls
  uint64_t num_swap_outs = 0;
  uint64_t num_swap_ins = 0;
  uint64_t num_swap_in_reused_blocks = 0;  // swapped-in blocks found still cached (no copy)
  uint64_t swap_out_bytes = 0;             // device -> host
  uint64_t swap_in_bytes = 0;              // host -> device
};

class KvCacheManager {
 public:
  // Validates the configuration.
  static StatusOr<KvCacheManager> create(const KvCacheConfig& config);
  // A manager of one KV cache group of a hybrid model (core/cache/kv_cache_coordinator.h): its
  // blocks come from `pool`, which other groups' managers share; config.num_blocks must be
  // the pool's and config.eviction is ignored (the pool's policy rules). Hashes given to such
  // a manager must already be its group's (distinct from every other group's).
  static StatusOr<KvCacheManager> create_in_pool(const KvCacheConfig& config,
                                                 std::shared_ptr<BlockPool> pool);
  // Such a group after the first reads its requests' hashes from `owner`, the first group's
  // manager (one list per request however many groups read it), and mixes `salt` into each as
  // it looks a block up or registers one, so that no group hits another's blocks. `owner`
  // stays at its address while this manager lives and adds (and appends to) every request
  // before this one does; this manager keeps no hashes of its own and is given none.
  void read_hashes_from(const KvCacheManager* owner, uint64_t salt);
  // The hash under which this manager caches a block of content `hash`: the hash itself, or
  // mixed with the salt of read_hashes_from.
  BlockHash group_hash(BlockHash hash) const {
    return hash_owner_ == nullptr ? hash : hash_combine(hash, hash_salt_);
  }

  KvCacheManager(KvCacheManager&&) = default;
  KvCacheManager& operator=(KvCacheManager&&) = default;

  // ---- requests -------------------------------------------------------------------------
  // Registers a waiting request holding no blocks. `block_hashes`: hashes of its full prompt
  // blocks (may be fewer, or none: uncached content), at most num_prompt_tokens / block_size.
  // The id must be new. `max_tokens`, when known (prompt + output), sizes the request's block
  // table and hash list once, so that they do not grow (copying) as it decodes.
  void add_request(RequestId id, uint64_t num_prompt_tokens,
                   std::span<const BlockHash> block_hashes, uint64_t max_tokens = 0);
  bool has_request(RequestId id) const { return index_.find(id) != FlatIdMap::kEmpty; }

  // The longest prefix of the request's known blocks that is cached, capped so that at least
  // one token is left to compute. The request must hold no slots. Changes nothing. The second
  // form fills *hit, reusing its storage (no allocation once it has grown).
  PrefixHit get_computed_blocks(RequestId id) const;
  void get_computed_blocks(RequestId id, PrefixHit* hit) const;
  // The most blocks a hit of this waiting request may cover: its known block hashes, capped
  // one token short of its known tokens; 0 without prefix caching.
  uint64_t max_hit_blocks(RequestId id) const;

  // Allocates slots for num_new_tokens more tokens (see the diagram above).
  std::optional<SlotAllocation> allocate_slots(RequestId id, uint64_t num_new_tokens);
  // The same for a request holding no slots, whose first blocks are `hit` (from
  // get_computed_blocks of this request, the pool unchanged since: checked); num_new_tokens
  // are the tokens after the hit. An empty hit is allocate_slots(id, num_new_tokens).
  // num_lookahead_tokens: slots beyond the new tokens, allocated but not counted as held.
  std::optional<SlotAllocation> allocate_slots(RequestId id, uint64_t num_new_tokens,
                                               const PrefixHit& hit,
                                               uint64_t num_lookahead_tokens = 0);

  // What allocate_slots(id, num_new_tokens, hit, num_lookahead_tokens) would take from the
  // pool, changing nothing: it succeeds iff blocks_needed <= free blocks + blocks_trimmed.
  struct BlockNeed {
    uint64_t blocks_needed = 0;   // new blocks, copy-on-write target and free hit blocks
    uint64_t blocks_trimmed = 0;  // blocks the retention trim makes free first
  };
  BlockNeed block_need(RequestId id, uint64_t num_new_tokens, const PrefixHit& hit = {},
                       uint64_t num_lookahead_tokens = 0) const;

  // Appends hashes for the request's next blocks (e.g. blocks filled by decode tokens) and
  // registers those already full. A manager reading another's hashes (read_hashes_from) is
  // given none: its owner has appended them, and it registers the blocks they cover.
  void append_block_hashes(RequestId id, std::span<const BlockHash> block_hashes);

  // Speculative decoding's rejected drafts: the request's last num_rejected slots (given by
  // the allocate_slots of the step that verified them) hold no token. Only the count moves
  // back (vLLM's num_computed_tokens -= num_rejected); the table keeps its blocks, which the
  // next steps' slots reuse. No rejected slot was offered to the prefix cache: a step's block
  // is registered once its hash is appended, and the caller appends hashes only for blocks
  // full of accepted tokens.
  void rewind(RequestId id, uint64_t num_rejected);

  // Finished: releases the request's blocks tail first (host copies too) and forgets it.
  void free(RequestId id);

  // Preemption by recompute: releases the blocks tail first (they stay cached until evicted)
  // and makes the request wait again; its known tokens (prompt + tokens held) and hashes are
  // kept, so get_computed_blocks finds what is still cached when it is rescheduled.
  void preempt(RequestId id);
  // The same, the request having num_known_tokens tokens now (vLLM's num_tokens: those held
  // plus any appended without a slot, e.g. the sampled token of a step that found no room).
  // They raise the hit cap of the re-admission as in vLLM.
  void preempt(RequestId id, uint64_t num_known_tokens);

  // vLLM's reset_prefix_cache (e.g. after a weight update): when no request holds a block,
  // drops every cached hash and returns true; the free queue keeps its order and no eviction
  // is counted. While any block is held it returns false and changes nothing.
  bool reset_prefix_cache() { return pool_->reset_prefix_cache(); }

  // A new request `child` sharing every block of `parent` (ref counts + 1): same tokens, same
  // hashes. Appending into a shared partial block later copies it (copy-on-write). The parent
  // must be on the device; the child id must be new.
  void fork(RequestId parent, RequestId child);

  // Copies the request's blocks to the host tier and releases them; returns the bytes moved,
  // or an empty optional (nothing changes) when the host tier lacks room.
  std::optional<uint64_t> swap_out(RequestId id);
  // Brings a swapped-out request back; returns the bytes moved, or an empty optional (nothing
  // changes) when the device lacks room.
  std::optional<uint64_t> swap_in(RequestId id);

  // Drops the blocks of which `policy` keeps no position, over the positions the request
  // holds ([0, num_tokens) minus dropped blocks; the newest is num_tokens - 1). `scores`:
  // empty, or one accumulated attention score per position 0 .. num_tokens-1 (H2O). Returns
  // the number of blocks dropped. Without scores this is O(blocks dropped).
  uint32_t trim(RequestId id, const RetentionPolicy& policy, std::span<const float> scores = {});

  // ---- per-request state ----------------------------------------------------------------
  // The request's block table: entry i holds tokens [i*block_size, (i+1)*block_size). An entry
  // is kNullBlock when retention dropped it, kSwappedBlock while the request is swapped out.
  // Valid until the next non-const call.
  std::span<const BlockId> block_table(RequestId id) const;
  // The request's block hashes: its prompt blocks', then those appended for decode blocks;
  // a manager reading another's (read_hashes_from) returns that list, unmixed.
  // Valid until the next non-const call.
  std::span<const BlockHash> block_hashes(RequestId id) const;
  // Token slots the request holds (0 while waiting).
  uint64_t num_tokens(RequestId id) const;
  bool is_swapped(RequestId id) const;

  // ---- the cache ------------------------------------------------------------------------
  uint32_t block_size() const { return block_size_; }
  uint32_t num_free_blocks() const { return pool_->num_free_blocks(); }
  // Fraction of the usable blocks in use (ref count > 0), 0..1 (vLLM's get_usage).
  double usage() const;
  KvCacheStats stats() const;
  const BlockPool& pool() const { return *pool_; }
  // The pool, for the managers of a hybrid model's other groups (create_in_pool).
  std::shared_ptr<BlockPool> share_pool() const { return pool_; }

  // Events are appended to *log while it is set (nullptr stops recording).
  void set_event_log(std::vector<CacheEvent>* log);
  // Cached blocks evicted from the pool are reported to *sink (a lower tier they demote to);
  // nullptr drops them. See BlockPool::set_eviction_sink.
  void set_eviction_sink(EvictionSink* sink) { pool_->set_eviction_sink(sink); }

  // KVSIM_CHECKs the invariants listed above. O(blocks + table entries); allocates.
  void check_invariants() const;
  // The request half of it: KVSIM_CHECKs every request's table and host count and adds one to
  // (*refs)[b] per table entry holding block b (refs: one per pool block). The managers of a
  // hybrid model's groups add into one vector, then check_ref_counts compares it with the pool.
  void check_tables(std::vector<uint32_t>* refs) const;

 private:
  struct RequestState {
    RequestId id = 0;
    std::vector<BlockId> table;
    std::vector<BlockHash> hashes;
    uint64_t num_tokens = 0;         // slots held
    uint64_t num_known_tokens = 0;   // prompt, or everything held before a preemption
    uint32_t num_cached_blocks = 0;  // table entries [0, n) have been offered to the cache
    uint32_t trim_cursor = 0;        // blocks below this were examined by the O(1) trim
    uint32_t num_host_blocks = 0;    // > 0 only while swapped out
    uint32_t max_blocks = 0;         // the table's size at most, when known (add_request)
    bool swapped = false;
  };

  // What allocate_slots would do, counted before anything changes (the blocks its trim frees
  // are counted apart, by trim_frees, only when needed).
  struct AllocationPlan {
    uint32_t trim_begin = 0;  // table entries [trim_begin, trim_end) the retention trim drops
    uint32_t trim_end = 0;
    uint64_t free_hits = 0;  // prefix-hit blocks that sit in the free queue
    uint64_t hit_tokens = 0;
    uint64_t total_tokens = 0;  // slots held after the call
    uint64_t new_entries = 0;   // new table entries (blocks popped)
    bool copy_on_write = false;

    uint64_t blocks_needed() const { return new_entries + (copy_on_write ? 1 : 0) + free_hits; }
  };

  KvCacheManager(const KvCacheConfig& config, std::shared_ptr<BlockPool> pool);

  RequestState& state(RequestId id);
  const RequestState& state(RequestId id) const;
  RequestState& new_state(RequestId id);
  void release_slot(RequestId id);

  // The request's hashes, unmixed: its own list, or its owner's (read_hashes_from).
  std::span<const BlockHash> hashes_of(const RequestState& s) const {
    return hash_owner_ == nullptr ? std::span<const BlockHash>(s.hashes)
                                  : std::span<const BlockHash>(hash_owner_->state(s.id).hashes);
  }
  uint64_t max_hit_blocks(const RequestState& s) const;
  AllocationPlan plan_allocation(const RequestState& s, uint64_t num_new_tokens,
                                 uint64_t num_lookahead_tokens, std::span<const BlockId> hit) const;
  BlockCopy copy_last_block(RequestState& s);
  // Table entries [*begin, *end) that a trim keeping [0, sink) and the last `window` held
  // positions drops now (without scores).
  void trim_range(const RequestState& s, uint64_t sink, uint64_t window, uint32_t* begin,
                  uint32_t* end) const;
  uint32_t trim_frees(const RequestState& s, uint32_t begin, uint32_t end) const;
  // Whether allocate_slots' automatic trim would drop nothing now (no retention, or the
  // window has not passed a block boundary since the last trim).
  bool trims_nothing(const RequestState& s) const {
    if (retention_ == nullptr) return true;
    uint32_t begin = 0;
    uint32_t end = 0;
    trim_range(s, retention_sink_, retention_window_, &begin, &end);
    return end <= begin;
  }
  uint32_t apply_trim(RequestState& s, uint32_t begin, uint32_t end);
  uint32_t trim_with_scores(RequestState& s, const RetentionPolicy& policy,
                            std::span<const float> scores);
  void release_table(RequestState& s);
  void register_full_blocks(RequestState& s);
  void check_request(const RequestState& s, std::vector<uint32_t>* refs) const;
  void log(CacheEventKind kind, RequestId request, BlockId block, uint32_t index,
           BlockHash hash = 0, BlockId other = kNullBlock);

  uint32_t block_size_;
  uint64_t bytes_per_block_;
  std::shared_ptr<const RetentionPolicy> retention_;
  uint64_t retention_sink_ = 0;      // retention_'s sink_tokens() and window_tokens(), asked once
  uint64_t retention_window_ = 0;    // (the per-step paths make no virtual calls)
  std::shared_ptr<BlockPool> pool_;  // shared by the managers of a hybrid model's groups
  std::vector<RequestState> states_;
  std::vector<uint32_t> free_states_;  // recycled slots of states_
  bool forked_ = false;                // fork() was called: partly filled blocks may be shared
  FlatIdMap index_;                    // request id -> slot in states_
  uint32_t num_host_blocks_;
  uint32_t num_host_used_blocks_ = 0;
  KvCacheStats counters_;  // the cumulative counters (block counts filled by stats())
  std::vector<uint64_t> scratch_positions_;
  std::vector<float> scratch_scores_;
  std::vector<uint64_t> scratch_keep_;
  std::vector<CacheEvent>* event_log_ = nullptr;
  const KvCacheManager* hash_owner_ = nullptr;  // read_hashes_from: whose hashes it reads
  uint64_t hash_salt_ = 0;                      // mixed into them when hash_owner_ is set
};

// KVSIM_CHECKs that every block's ref count equals refs[block], the table entries holding it.
void check_ref_counts(const BlockPool& pool, std::span<const uint32_t> refs);

}  // namespace kvsim
