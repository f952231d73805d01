// The identities the paged KV cache works with: block ids, prefix hashes and request ids.
//
// A BlockId names one physical block of the device pool, 0 .. num_blocks-1; it is the value a
// block table holds and the index the kernels use to find a block's K and V in paged storage.
// A BlockHash names the *content* of a full block together with everything before it (the
// prefix hash chain, core/cache/prefix_hash.h); two blocks with equal hashes hold the same KV.
#pragma once

#include <cstdint>
#include <limits>

namespace kvsim {

using BlockId = uint32_t;
using BlockHash = uint64_t;
using RequestId = uint64_t;

// Block 0 of a device pool is reserved as vLLM v1's null block (BlockPool with
// NullBlock::kReserved, core/cache/block_pool.h): never free, never handed out, so a pool of N
// blocks lends out N - 1, ids 1 .. N-1, exactly as vLLM does. Lower tiers reserve none.
inline constexpr BlockId kReservedNullBlock = 0;

// A block-table entry that holds no block: the retention policy dropped every position of that
// block. vLLM writes its null block (block 0) there; kvsim writes this sentinel so that the
// kernels skip the entry instead of reading block 0. It is never freed.
inline constexpr BlockId kNullBlock = std::numeric_limits<BlockId>::max();

// A block-table entry of a request whose blocks are swapped out to the host tier.
inline constexpr BlockId kSwappedBlock = kNullBlock - 1;

// Largest pool a BlockPool accepts (ids below the two sentinels).
inline constexpr uint32_t kMaxNumBlocks = kNullBlock - 2;

// True for a block-table entry that holds a device block (not kNullBlock / kSwappedBlock).
inline constexpr bool holds_block(BlockId entry) { return entry < kMaxNumBlocks; }

}  // namespace kvsim
