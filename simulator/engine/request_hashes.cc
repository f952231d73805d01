#include "simulator/engine/request_hashes.h"

#include <algorithm>

#include "core/cache/prefix_hash.h"

namespace kvsim::sim {
namespace {

constexpr uint64_t kGroupSalt = 0x67726f7570ull;     // "group"
constexpr uint64_t kUniqueSalt = 0x756e69717565ull;  // "unique"
constexpr uint64_t kRepeatSalt = 0x726570656174ull;  // "repeat"

}  // namespace

BlockHash unique_block_seed(RequestId id) {
  return hash_combine(hash_combine(kPrefixHashSeed, kUniqueSalt), id);
}

BlockHash unique_block_hash(BlockHash seed, uint64_t index) { return hash_combine(seed, index); }

void prompt_block_hashes(const RequestSpec& request, uint32_t block_size,
                         std::vector<BlockHash>* out) {
  out->clear();
  if (!request.hash_ids.empty()) {
    hash_trace_blocks(request.hash_ids, request.prompt_tokens, block_size, out,
                      request.hash_block_tokens);
    return;
  }
  const uint64_t full_blocks = request.prompt_tokens / block_size;
  const uint64_t group_blocks =
      request.prefix_group ? std::min<uint64_t>(request.prefix_tokens / block_size, full_blocks)
                           : 0;
  out->reserve(full_blocks);
  BlockHash parent = kPrefixHashSeed;
  for (uint64_t i = 0; i < group_blocks; ++i) {
    parent = hash_combine(hash_combine(parent, kGroupSalt), *request.prefix_group);
    out->push_back(parent);
  }
  // The rest is the request's own, or its content's when it repeats: one seed after the shared
  // part, then one mix per block.
  const BlockHash seed = request.content_id
                             ? hash_combine(hash_combine(parent, kRepeatSalt), *request.content_id)
                             : hash_combine(hash_combine(parent, kUniqueSalt), request.id);
  for (uint64_t i = group_blocks; i < full_blocks; ++i) out->push_back(hash_combine(seed, i));
}

}  // namespace kvsim::sim
