// Prefix hashing: the content hash of a full KV block, chained from its parent block.
//
// A block's KV depends on its own tokens and on every token before it, so its hash chains the
// parent's hash (the previous block of the sequence) with the block's own content:
//
//   hash(block 0) = H(kPrefixHashSeed, content of block 0)
//   hash(block i) = H(hash(block i-1), content of block i)
//
// Equal hashes mean equal prefixes (up to 64-bit collisions, ~n^2 / 2^65 for n blocks). Only
// full blocks are hashed and cached. The content is either
//   - token ids (the tiny model, synthetic workloads): hash_token_blocks(), or
//   - trace hash ids (Mooncake traces carry no tokens, one `hash_id` per 512-token block, equal
//     ids for equal content-and-prefix): hash_trace_blocks() maps them onto the engine's
//     block size B (T = trace block tokens, 512):
//       B divides T     engine block i is sub-block j = i mod (T/B) of trace block
//                       h = hash_ids[i / (T/B)]:            hash_i = H(hash_{i-1}, h, j)
//       B multiple of T engine block i covers trace blocks m*i .. m*i+m-1 (m = B/T):
//                                           hash_i = H(hash_{i-1}, h_{m*i}, ..., h_{m*i+m-1})
//       otherwise       engine block i covers tokens [i*B, (i+1)*B), i.e. trace blocks
//                       a = i*B / T .. b = ((i+1)*B - 1) / T, starting at offset o = i*B mod T
//                       of block a:               hash_i = H(hash_{i-1}, o, h_a, ..., h_b)
//     In every case a block's hash depends only on the trace blocks its tokens lie in, so two
//     requests whose hash_ids agree up to trace block k share every engine block that ends in
//     trace block k or before. Blocks whose tokens are not all covered by hash_ids (the
//     prompt's partial last block, or a short hash_ids list) get no hash.
// Decode tokens of a trace request have no content; a caller that wants them cached gives
// each a unique value (e.g. hash_combine(hash_combine(parent, request id), block index)).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/cache/block_id.h"

namespace kvsim {

// The parent hash of a sequence's first block ("kvsim-v1" in ASCII).
inline constexpr BlockHash kPrefixHashSeed = 0x6b7673696d2d7631ull;

// Tokens per block of Mooncake traces (the unit of their hash_ids).
inline constexpr uint32_t kMooncakeTraceBlockTokens = 512;

// splitmix64's finaliser: a bijection on 64-bit values with full avalanche.
inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Mixes one 64-bit value into a running hash (splitmix64-based, order-sensitive). Inline: the
// cache managers of a hybrid model mix a group's salt into every hash they look up.
inline BlockHash hash_combine(BlockHash hash, uint64_t value) { return mix64(mix64(hash) ^ value); }

// The hash of one full block of token ids after a block hashed `parent`.
BlockHash hash_block_tokens(BlockHash parent, std::span<const int32_t> token_ids);

// Appends to *out the hashes of the full blocks of `token_ids` (token_ids.size() / block_size
// of them), the first chained from `parent` (kPrefixHashSeed for a sequence's start).
void hash_token_blocks(std::span<const int32_t> token_ids, uint32_t block_size,
                       std::vector<BlockHash>* out, BlockHash parent = kPrefixHashSeed);

// Appends to *out the hashes of the full engine blocks of a `num_tokens`-token prompt whose
// trace gives `hash_ids`, one per `trace_block_tokens` tokens (the cases above). block_size
// and trace_block_tokens are > 0.
void hash_trace_blocks(std::span<const uint64_t> hash_ids, uint64_t num_tokens, uint32_t block_size,
                       std::vector<BlockHash>* out,
                       uint32_t trace_block_tokens = kMooncakeTraceBlockTokens);

}  // namespace kvsim
