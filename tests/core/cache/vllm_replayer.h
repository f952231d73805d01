// Replays one vLLM v1 conformance stream (tests/data/vllm_v1_conformance/FORMAT.md) through
// kvsim's KvCacheManager and compares every recorded result and state, step by step.
//
// A stream was recorded by driving vLLM's own KVCacheManager (one full-attention group,
// prefix caching on, block 0 the null block) the way vLLM's scheduler does. The replayer
// drives kvsim's manager with the same operations:
//
//   admit    add_request (a new request: its prompt's block hashes) + get_computed_blocks +
//            allocate_slots(hit), after vLLM's full-sequence gate when the step sets full_fit
//            (a scheduler rule in vLLM, so the replayer plays the scheduler and checks it)
//   step     append_block_hashes for blocks the appended tokens filled + allocate_slots
//   preempt  preempt(id, tokens of the request now)       finish   free(id)
//   lookup   a throw-away request: add_request + get_computed_blocks + free
//   reset    reset_prefix_cache()
//
// and after each step compares the block tables of every request, the whole free queue, the
// free count, the blocks evicted (in order) and newly cached, and the prefix statistics
// counted as vLLM counts them (at every lookup; kvsim's own counters differ on purpose:
// core/cache/kv_cache_manager.h). Block ids are compared as they are: kvsim reserves the same null
// block. Streams that use lookahead slots (speculative decoding) cannot be replayed: kvsim
// has none.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kvsim::testing {

// Why kvsim cannot replay `stream`, or nothing when it can.
std::optional<std::string> unreplayable_reason(const nlohmann::json& stream);

struct ReplayResult {
  uint32_t num_steps = 0;  // steps replayed and matched before the first mismatch
  std::string mismatch;    // empty when every step matched: else "step i (op): what differs"
};

// Replays `stream` (it must be replayable). With `event_log`, the manager records its events,
// which is how evictions and newly cached blocks are seen block by block (the manager then
// allocates one block at a time); without, it runs its batched, prefetching allocation path
// and the evictions are compared by count only.
ReplayResult replay_vllm_stream(const nlohmann::json& stream, bool event_log);

}  // namespace kvsim::testing
