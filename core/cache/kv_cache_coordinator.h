// KvCacheCoordinator: a request's block tables in every KV cache group of a model, over one
// BlockPool — what the simulator's scheduler allocates against (vLLM v1's KVCacheCoordinator:
// UnitaryKVCacheCoordinator for one group, HybridKVCacheCoordinator for several).
//
// A uniform model has one group and the coordinator is its KvCacheManager, call for call (the
// vLLM conformance streams and the golden outputs hold it to that). A hybrid model
// (core/model/model_spec.h is_hybrid; its groups planned by core/model/kv_groups.h) has one manager
// per KV cache group, all drawing on one shared pool, with these semantics (vLLM v1 at 001cabc1:
// kv_cache_coordinator.py, single_type_kv_cache_manager.py):
//   - Block tables per group. Every attention group has the same block size (the plan's
//     block), so a request's groups hold tables of equal length; a block id taken by one
//     group is a page in each of that group's layers_per_group tensors.
//   - Hashes per group. Group g caches a block under the request's hash mixed with g (vLLM's
//     BlockHashWithGroupId) except in the first group, so no group hits another's blocks and
//     the first group's hashes are the request's own (what connectors and tiers see). A
//     request's hash list is kept once, by the first group's manager; the others read it and
//     mix g in at each lookup and registration (KvCacheManager::read_hashes_from), so a
//     queued request costs one list, not one per group.
//   - Full and MLA groups keep every block (today's manager).
//   - Sliding-window groups of window W (a token attends to W keys, itself included) release
//     every block lying wholly before (tokens held - W + 1), as the sequence grows: the
//     retention trim window:(W-1) of the manager, whose entries become kNullBlock.
//   - Recurrent groups hold one block per request whatever its length (one state), never
//     cached: a model with recurrent layers gets no prefix hits (vLLM without mamba prefix
//     caching).
//   - Prefix hit: the longest prefix L every group hits. A full group hits its contiguous
//     cached prefix; a sliding group hits at L when the last cdiv(W - 1, block) blocks before
//     L are cached (scanned right to left; earlier entries are kNullBlock), or when blocks
//     [0, L) all are. L is lowered until every group agrees (a fixed point).
//   - All-or-nothing: allocate_slots counts every group's need first (new blocks, free hit
//     blocks, less what its window trim frees) and changes nothing unless the sum fits; then
//     it takes every group's hit blocks before any group pops a new block, so no allocation
//     evicts another group's hit, and allocates the groups freeing the most first.
//   - Statistics: the block counts are the pool's; prefix queries, hits and preemptions are
//     the first group's (every group takes the same hit); trims and copies add up.
// Hybrid models are not swapped (vLLM v1 has no swap; the engine setup refuses it) and take
// no retention policy of the scenario's (the windows are the model's).
// Not thread-safe; one coordinator per simulated device.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/base/status.h"
#include "core/cache/kv_cache_manager.h"
#include "core/model/kv_groups.h"
#include "core/model/model_spec.h"

namespace kvsim {

// One KV cache group as the coordinator allocates it.
struct CacheGroupSpec {
  LayerKind kind = LayerKind::kFull;  // full, mla, sliding_window or recurrent
  uint32_t window_tokens = 0;         // sliding_window: W, keys a token attends to (itself too)
};

// The groups of a hybrid plan (core/model/kv_groups.h), in the plan's order. Fails when attention
// groups have different block sizes (every group must hash and hit at one block size).
StatusOr<std::vector<CacheGroupSpec>> cache_group_specs(const KvCachePlan& plan);

class KvCacheCoordinator {
 public:
  // `groups` empty: one group, the manager of `config` (a uniform model). Otherwise one
  // manager per group over one pool of config.num_blocks; config.retention must be unset and
  // config.num_host_blocks 0.
  static StatusOr<KvCacheCoordinator> create(const KvCacheConfig& config,
                                             std::span<const CacheGroupSpec> groups = {});

  KvCacheCoordinator(KvCacheCoordinator&&) = default;
  KvCacheCoordinator& operator=(KvCacheCoordinator&&) = default;

  // ---- requests: KvCacheManager's contract, for every group at once ---------------------
  void add_request(RequestId id, uint64_t num_prompt_tokens,
                   std::span<const BlockHash> block_hashes, uint64_t max_tokens = 0);
  void get_computed_blocks(RequestId id, PrefixHit* hit) const;
  std::optional<SlotAllocation> allocate_slots(RequestId id, uint64_t num_new_tokens) {
    return allocate_slots(id, num_new_tokens, PrefixHit{});
  }
  std::optional<SlotAllocation> allocate_slots(RequestId id, uint64_t num_new_tokens,
                                               const PrefixHit& hit,
                                               uint64_t num_lookahead_tokens = 0);
  // Blocks that admitting a waiting request with `hit` and num_tokens more tokens takes from
  // the free queue: every group's new blocks and free hit blocks (the scheduler's check
  // before allocate_slots; a window trim frees nothing in a request holding nothing).
  uint64_t blocks_to_admit(const PrefixHit& hit, uint64_t num_tokens) const;
  // The same for a hit of hit_blocks blocks, less its free blocks: new blocks only.
  uint64_t new_blocks_to_admit(uint64_t hit_blocks, uint64_t num_tokens) const;
  // The most blocks a hit of this waiting request may cover (KvCacheManager::max_hit_blocks).
  uint64_t max_hit_blocks(RequestId id) const { return groups_[0].max_hit_blocks(id); }
  // Free blocks below which no waiting request can be admitted, whatever its hit: one per
  // group (a hit leaves at least one token, so every group takes a new block).
  // Blocks a request of seq_len tokens holds at most, summed over the groups, with chunks of
  // at most max_chunk_tokens (core/model/kv_groups.h step 5; a uniform model: its table).
  uint64_t peak_blocks(uint64_t seq_len, uint64_t max_chunk_tokens) const;
  uint32_t min_blocks_to_admit() const { return static_cast<uint32_t>(groups_.size()); }
  void append_block_hashes(RequestId id, std::span<const BlockHash> block_hashes);
  void rewind(RequestId id, uint64_t num_rejected);
  void free(RequestId id);
  void preempt(RequestId id);
  // Uniform models only (hybrid models are never swapped).
  std::optional<uint64_t> swap_out(RequestId id);
  std::optional<uint64_t> swap_in(RequestId id);

  // ---- state ------------------------------------------------------------------------------
  // The first group's hashes: the request's own.
  std::span<const BlockHash> block_hashes(RequestId id) const {
    return groups_[0].block_hashes(id);
  }
  uint32_t block_size() const { return groups_[0].block_size(); }
  uint32_t num_free_blocks() const { return pool_->num_free_blocks(); }
  double usage() const { return groups_[0].usage(); }
  KvCacheStats stats() const;
  const BlockPool& pool() const { return *pool_; }
  size_t num_groups() const { return groups_.size(); }
  // Group g's manager (its block tables, for views and tests).
  const KvCacheManager& group(size_t g) const { return groups_[g]; }
  const CacheGroupSpec& group_spec(size_t g) const { return specs_[g]; }
  void set_eviction_sink(EvictionSink* sink) { groups_[0].set_eviction_sink(sink); }

  // The pool's invariants, every group's (KvCacheManager::check_invariants) and: every block's
  // ref count is the number of entries holding it across all groups' tables.
  void check_invariants() const;

 private:
  KvCacheCoordinator(std::vector<KvCacheManager> groups, std::vector<CacheGroupSpec> specs);

  bool hybrid() const { return groups_.size() > 1 || has_recurrent_; }
  // The longest hit of at most max_blocks blocks that group g has for the request.
  uint64_t group_hit_blocks(size_t g, RequestId id, uint64_t max_blocks) const;
  // Group g's entries [0, num_blocks) of a hit (kNullBlock before a sliding window) into *out;
  // returns how many of them are free.
  uint32_t fill_group_hit(size_t g, RequestId id, uint64_t num_blocks,
                          std::vector<BlockId>* out) const;
  // Group g's share of a hybrid hit (its entries of hit.blocks or hit.group_blocks).
  std::span<const BlockId> group_hit(size_t g, const PrefixHit& hit) const;
  // Group g's share of `hit` as a PrefixHit of its own (scratch, valid until the next call).
  const PrefixHit& group_prefix_hit(size_t g, const PrefixHit& hit);
  bool surely_fits(RequestId id, uint64_t num_new_tokens, const PrefixHit& hit,
                   uint64_t lookahead) const;
  SlotAllocation commit_hybrid(RequestId id, uint64_t num_new_tokens, const PrefixHit& hit,
                               uint64_t lookahead);
  std::optional<SlotAllocation> allocate_hybrid(RequestId id, uint64_t num_new_tokens,
                                                const PrefixHit& hit, uint64_t lookahead);

  std::vector<KvCacheManager> groups_;
  const BlockPool* pool_;  // the groups' one pool (their managers own it)
  std::vector<CacheGroupSpec> specs_;
  bool has_recurrent_ = false;
  std::vector<PrefixHit> scratch_hits_;
  std::vector<std::pair<int64_t, size_t>> scratch_order_;
};

}  // namespace kvsim
