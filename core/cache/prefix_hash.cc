#include "core/cache/prefix_hash.h"

#include <algorithm>

#include "core/base/check.h"

namespace kvsim {
namespace {

// The hash of engine block i (tokens [i*B, (i+1)*B)) from the trace blocks under it.
BlockHash trace_block_hash(BlockHash parent, std::span<const uint64_t> hash_ids, uint64_t i,
                           uint64_t block_size, uint64_t trace_tokens) {
  if (trace_tokens % block_size == 0) {  // B divides T: sub-block j of trace block h
    const uint64_t per_trace = trace_tokens / block_size;
    return hash_combine(hash_combine(parent, hash_ids[i / per_trace]), i % per_trace);
  }
  BlockHash hash = parent;
  if (block_size % trace_tokens != 0) {  // neither: the start offset inside the first block
    hash = hash_combine(hash, (i * block_size) % trace_tokens);
  }
  const uint64_t first = i * block_size / trace_tokens;
  const uint64_t last = ((i + 1) * block_size - 1) / trace_tokens;
  for (uint64_t t = first; t <= last; ++t) hash = hash_combine(hash, hash_ids[t]);
  return hash;
}

}  // namespace

BlockHash hash_block_tokens(BlockHash parent, std::span<const int32_t> token_ids) {
  BlockHash hash = parent;
  for (int32_t token : token_ids) hash = hash_combine(hash, static_cast<uint32_t>(token));
  return hash;
}

void hash_token_blocks(std::span<const int32_t> token_ids, uint32_t block_size,
                       std::vector<BlockHash>* out, BlockHash parent) {
  KVSIM_CHECK(block_size > 0, "block_size must be positive");
  for (size_t start = 0; start + block_size <= token_ids.size(); start += block_size) {
    parent = hash_block_tokens(parent, token_ids.subspan(start, block_size));
    out->push_back(parent);
  }
}

void hash_trace_blocks(std::span<const uint64_t> hash_ids, uint64_t num_tokens, uint32_t block_size,
                       std::vector<BlockHash>* out, uint32_t trace_block_tokens) {
  KVSIM_CHECK(block_size > 0 && trace_block_tokens > 0, "block sizes must be positive");
  const uint64_t covered =
      std::min<uint64_t>(num_tokens, hash_ids.size() * uint64_t{trace_block_tokens});
  BlockHash parent = kPrefixHashSeed;
  for (uint64_t i = 0; (i + 1) * block_size <= covered; ++i) {
    parent = trace_block_hash(parent, hash_ids, i, block_size, trace_block_tokens);
    out->push_back(parent);
  }
}

}  // namespace kvsim
