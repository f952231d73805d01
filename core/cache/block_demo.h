// The block demo: a scripted scenario on a 17-block pool (block 0 is vLLM's null block, 16 are
// lent out) that shows, step by step, what the paged KV cache does — block tables, ref counts,
// the free queue (eviction order), prefix hits, copy-on-write, a preemption and the eviction
// of a cached block.
//
// The scenario (block size 4, an 8-token system prompt shared by requests 1 and 2):
//   1. request 1 arrives (14 tokens): 4 blocks, the 3 full ones cached
//   2. request 2 arrives (13 tokens): prefix hit on the 2 system-prompt blocks
//   3. request 1 forks request 3 (parallel sampling): every block shared
//   4. request 3 decodes a token into the shared partial block: copy-on-write
//   5. request 1 decodes 2 tokens: its last block fills and is cached
//   6. request 4 arrives (44 tokens, 11 blocks) and does not fit: nothing changes
//   7. the scheduler preempts request 2: its blocks go back tail first, still cached
//   8. request 4 is admitted: the free queue's order takes the never-used blocks, then
//      request 2's tail — its partial block, then its cached block, which is evicted
//   9. request 4 finishes
//  10. request 2 resumes: its head is still cached, its evicted block is recomputed
//  11. requests 1, 2 and 3 finish: everything is free, the free queue keeps the prefixes
// Both `kvsim blocks --demo` and the GUI call run_block_demo(); a step carries everything
// needed to draw it, so front ends compute nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/cache/block_id.h"
#include "core/cache/cache_event.h"
#include "core/cache/kv_cache_manager.h"

namespace kvsim {

struct DemoRequest {
  RequestId id = 0;
  uint64_t num_tokens = 0;
  std::vector<BlockId> block_table;  // may hold kNullBlock / kSwappedBlock
};

struct DemoBlock {
  BlockId id = 0;
  uint32_t ref_count = 0;
  std::optional<BlockHash> hash;  // set while the block is in the prefix cache
};

struct DemoStep {
  std::string action;                 // what the scheduler did, one line
  std::string note;                   // why it matters, one or two sentences
  std::vector<CacheEvent> events;     // what the cache did, in order
  std::vector<DemoRequest> requests;  // live requests by id, after the step
  std::vector<DemoBlock> blocks;      // every block, by id (the null block too), after the step
  std::vector<BlockId> free_queue;    // free blocks, next to be reused first
  KvCacheStats stats;                 // counters after the step
};

struct BlockDemo {
  uint32_t num_blocks = 0;
  uint32_t block_size = 0;
  EvictionKind eviction = EvictionKind::kLru;
  std::vector<DemoStep> steps;
};

// A block after a step: in use (ref count > 0), free but still holding a reusable prefix
// (a hash: the next allocation that needs it is a prefix hit), free and empty, or the null
// block (block 0: reserved, never handed out).
enum class DemoBlockState : uint8_t { kUsed, kCachedFree, kFree, kNull };
DemoBlockState demo_block_state(const DemoBlock& block);
// "used", "cached_free", "free", "null".
std::string_view demo_block_state_name(DemoBlockState state);

// Runs the scenario with the eviction policy `eviction`.
StatusOr<BlockDemo> run_block_demo(EvictionKind eviction = EvictionKind::kLru);

}  // namespace kvsim
