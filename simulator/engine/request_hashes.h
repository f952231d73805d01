// Block hashes of a request's prompt, at the engine's block size, for the prefix cache.
//
//   trace hash_ids (Mooncake)  core/cache/prefix_hash.h's hash_trace_blocks: equal ids at equal
//                              positions give equal block hashes
//   prefix group g of S tokens blocks wholly inside the first S tokens chain the group:
//                              hash_i = H(hash_{i-1}, kGroupSalt, g)
//   the request's own blocks   seed = H(hash of the last shared block (or the chain's seed),
//                              kUniqueSalt, id); hash_i = H(seed, i): unique to the request
// Unique blocks still get hashes so that a request preempted by recompute finds its own
// blocks in the cache when it comes back (vLLM does the same). Decode tokens have no content
// either: unique_block_hash() gives the blocks they fill unique hashes for the same reason.
// Only full prompt blocks (and, for traces, those the hash_ids cover) are hashed.
#pragma once

#include <cstdint>
#include <vector>

#include "core/cache/block_id.h"
#include "simulator/engine/request.h"

namespace kvsim::sim {

// Appends the hashes of the request's full prompt blocks to *out (cleared first).
void prompt_block_hashes(const RequestSpec& request, uint32_t block_size,
                         std::vector<BlockHash>* out);

// The seed of request `id`'s unique blocks, and the hash of its block `index` whose content
// exists nowhere else: unique_block_hash(unique_block_seed(id), index).
BlockHash unique_block_seed(RequestId id);
BlockHash unique_block_hash(BlockHash seed, uint64_t index);

}  // namespace kvsim::sim
