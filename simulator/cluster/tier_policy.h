// How a tiered KV pool stores KV below HBM (simulator/cluster/kv_tiers.h): the unit it moves
// (a chunk of consecutive blocks) and when new KV goes down (the write policy).
//
//   chunk_tokens  tokens per chunk, a multiple of the block size; a chunk is stored, found,
//                 loaded and evicted as one unit (LMCache's chunk, 256 tokens by default;
//                 vLLM's offloaded block; a Mooncake Store object). One block: block-granular.
//   on_evict      KV goes down when the level above evicts it (SGLang HiCache's write_back):
//                 HBM's evictions demote to tier 0, tier t's to tier t + 1.
//   write_through a request's newly computed full chunks are copied into every tier when its
//                 prefill ends (LMCache's save into each of its backends; HiCache's
//                 write_through); an eviction anywhere only drops a copy.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace kvsim::sim {

enum class TierWritePolicy : uint8_t { kOnEvict, kWriteThrough };

// "on_evict", "write_through".
std::string_view tier_write_policy_name(TierWritePolicy policy);
// An unknown name lists the valid ones.
StatusOr<TierWritePolicy> parse_tier_write_policy(std::string_view name);

// The blocks of `block_size` tokens in a chunk of `chunk_tokens` (0: one block), or an error
// naming tiers.chunk_tokens and `replica` when the chunk is not a multiple of the block.
StatusOr<uint32_t> blocks_per_chunk(uint32_t chunk_tokens, uint32_t block_size,
                                    const std::string& replica);

// The tiers' layout for one replica.
struct TierChunking {
  uint32_t blocks_per_chunk = 1;  // >= 1: the replica's blocks in one chunk
  TierWritePolicy write_policy = TierWritePolicy::kOnEvict;
};

}  // namespace kvsim::sim
