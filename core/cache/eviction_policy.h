// EvictionPolicy: the order in which free blocks are reused, i.e. which cached prefix block is
// evicted when a new block is needed.
//
// The policy owns the free queue (core/cache/free_block_queue.h). BlockPool tells it when a block's
// ref count falls to 0 (push), when a free block is taken back by a prefix hit (remove), and
// asks it for the block to reuse next (pop). Every operation is O(1) amortized (fifo's heap:
// O(log n)), allocation-free in steady state and deterministic (no hash-map iteration, ties
// broken by queue order).
//
// Orders (EvictionKind, named by one table: eviction_name / parse_eviction; built by
// make_eviction_policy):
//   lru   vLLM v1's single free queue: every free block, hashed or not, in the order it was
//         freed (least recently used first). A request frees its blocks tail first, so a
//         sequence's tail is evicted before its shared head. A cached prefix block can be
//         evicted while an empty block freed after it is still free — vLLM does exactly that,
//         and tests/core/cache/vllm_conformance_test.cc holds lru to vLLM block for block.
//   lfu   fewest prefix hits first (1 + hits since the block was cached, saturating at 63),
//         ties least recently freed first.
//   fifo  cached earliest first, however often the block was hit since (the order the blocks
//         got their hash). A block freed again must go back to its old place among the free
//         ones, which no list does in O(1): fifo keeps its cached free blocks in an indexed
//         4-ary heap keyed by the cache sequence number, O(log n) per operation.
//   none  prefix caching off: blocks are never cached; one queue in the order of freeing.
// lfu and fifo are kvsim's own (vLLM has only lru) and keep a free block that holds no hash (a
// partial block, a block never cached) ahead of every cached one, in the order the empty
// blocks were freed: with a policy that ranks cached blocks by their worth, reusing an empty
// block first never costs a prefix.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/cache/block_id.h"

namespace kvsim {

// The policies, typed: parsed once from a name (YAML, --set, --eviction, the GUI's combo) and
// passed as this value from then on.
enum class EvictionKind : uint8_t {
  kLru,   // "lru"
  kLfu,   // "lfu"
  kFifo,  // "fifo"
  kNone,  // "none": prefix caching off
};
std::string_view eviction_name(EvictionKind kind);
// An unknown name is an error that lists the valid ones (and the nearest).
StatusOr<EvictionKind> parse_eviction(std::string_view name);
// Every name, in table order: lru, lfu, fifo, none.
std::vector<std::string> eviction_names();

class EvictionPolicy {
 public:
  virtual ~EvictionPolicy() = default;

  virtual EvictionKind kind() const = 0;
  // The YAML / CLI name: eviction_name(kind()).
  std::string_view name() const { return eviction_name(kind()); }
  // False for "none": the pool then never registers a hash.
  bool caches_prefixes() const { return kind() != EvictionKind::kNone; }

  // `block`'s ref count fell to 0; `cached`: it still holds a registered hash.
  virtual void push(BlockId block, bool cached) = 0;
  // A free block was found by hash (prefix hit) and leaves the free queue.
  virtual void remove(BlockId block) = 0;
  // Takes the block to reuse next off the queue. The queue must not be empty.
  virtual BlockId pop() = 0;
  // The held `block` got a hash (it now holds a reusable full block).
  virtual void on_cached(BlockId /*block*/) {}
  // The cached `block` was found by a prefix hit.
  virtual void on_hit(BlockId /*block*/) {}

  // Free blocks.
  virtual uint32_t size() const = 0;
  // True when `block` is in the free queue.
  virtual bool contains(BlockId block) const = 0;
  // Writes the free blocks in eviction order, the next one to be reused first. O(n log n) at
  // most; for tests, demos and checks, never on a hot path.
  virtual void eviction_order(std::vector<BlockId>* out) const = 0;
  // KVSIM_CHECKs the policy's own structures.
  virtual void check_invariants() const = 0;
};

// Builds the policy `kind` for a pool of `num_blocks` blocks.
std::unique_ptr<EvictionPolicy> make_eviction_policy(EvictionKind kind, uint32_t num_blocks);

}  // namespace kvsim
