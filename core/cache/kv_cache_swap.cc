// KvCacheManager: preemption by swap (device <-> host tier) and the invariant checks.
#include <string>

#include "core/base/check.h"
#include "core/base/checked_math.h"
#include "core/cache/kv_cache_manager.h"

namespace kvsim {
std::optional<uint64_t> KvCacheManager::swap_out(RequestId id) {
  RequestState& s = state(id);
  KVSIM_CHECK(!s.swapped, "swap_out() of a request already swapped out");
  uint32_t held = 0;
  for (BlockId block : s.table) held += holds_block(block) ? 1 : 0;
  if (held > num_host_blocks_ - num_host_used_blocks_) return std::nullopt;
  for (size_t k = s.table.size(); k-- > 0;) {  // tail first
    const BlockId block = s.table[k];
    if (!holds_block(block)) continue;
    pool_->release(block);
    s.table[k] = kSwappedBlock;
    log(CacheEventKind::kSwapOut, id, block, static_cast<uint32_t>(k));
  }
  s.swapped = true;
  s.num_host_blocks = held;
  num_host_used_blocks_ += held;
  const uint64_t bytes = uint64_t{held} * bytes_per_block_;
  ++counters_.num_swap_outs;
  counters_.swap_out_bytes += bytes;
  return bytes;
}

// A swapped block whose hash is still cached on the device is taken back by a prefix hit
// instead of a copy; every other one is copied into a new block.
std::optional<uint64_t> KvCacheManager::swap_in(RequestId id) {
  RequestState& s = state(id);
  KVSIM_CHECK(s.swapped, "swap_in() of a request that is not swapped out");
  const std::span<const BlockHash> hashes = hashes_of(s);
  uint64_t copies = 0;
  uint64_t free_reused = 0;
  for (uint32_t k = 0; k < s.table.size(); ++k) {
    if (s.table[k] != kSwappedBlock) continue;
    const std::optional<BlockId> cached =
        k < s.num_cached_blocks ? pool_->find(group_hash(hashes[k])) : std::nullopt;
    if (!cached.has_value()) {
      ++copies;
    } else if (pool_->ref_count(*cached) == 0) {
      ++free_reused;
    }
  }
  if (copies + free_reused > pool_->num_free_blocks()) return std::nullopt;
  // Touch the reused blocks before allocating, so no allocation evicts one of them.
  for (uint32_t k = 0; k < s.num_cached_blocks && k < s.table.size(); ++k) {
    if (s.table[k] != kSwappedBlock) continue;
    if (const std::optional<BlockId> cached = pool_->find(group_hash(hashes[k]))) {
      pool_->touch(*cached);
      s.table[k] = *cached;
      ++counters_.num_swap_in_reused_blocks;
      log(CacheEventKind::kHit, id, *cached, k, group_hash(hashes[k]));
    }
  }
  for (uint32_t k = 0; k < s.table.size(); ++k) {
    if (s.table[k] != kSwappedBlock) continue;
    s.table[k] = pool_->allocate();
    log(CacheEventKind::kSwapIn, id, s.table[k], k);
    if (k < s.num_cached_blocks && pool_->cache(s.table[k], group_hash(hashes[k]))) {
      log(CacheEventKind::kCache, id, s.table[k], k, group_hash(hashes[k]));
    }
  }
  num_host_used_blocks_ -= s.num_host_blocks;
  s.num_host_blocks = 0;
  s.swapped = false;
  const uint64_t bytes = copies * bytes_per_block_;
  ++counters_.num_swap_ins;
  counters_.swap_in_bytes += bytes;
  return bytes;
}

void KvCacheManager::check_invariants() const {
  pool_->check_invariants();
  std::vector<uint32_t> refs(pool_->num_blocks(), 0);
  check_tables(&refs);
  check_ref_counts(*pool_, refs);
}

void KvCacheManager::check_tables(std::vector<uint32_t>* refs) const {
  KVSIM_CHECK(refs->size() == pool_->num_blocks(), "one reference count per block of the pool");
  uint64_t host_blocks = 0;
  uint32_t live = 0;
  for (uint32_t slot = 0; slot < states_.size(); ++slot) {
    const RequestState& s = states_[slot];
    if (index_.find(s.id) != slot) continue;  // a recycled slot
    ++live;
    check_request(s, refs);
    host_blocks += s.num_host_blocks;
  }
  KVSIM_CHECK(live == index_.size(), "request index counts requests that have no state");
  KVSIM_CHECK(live + free_states_.size() == states_.size(), "a request slot leaked");
  KVSIM_CHECK(host_blocks == num_host_used_blocks_ && host_blocks <= num_host_blocks_,
              "host tier count disagrees with swapped requests");
}

void check_ref_counts(const BlockPool& pool, std::span<const uint32_t> refs) {
  for (BlockId block = 0; block < pool.num_blocks(); ++block) {
    KVSIM_CHECK(refs[block] == pool.ref_count(block),
                "block " + std::to_string(block) + ": ref count " +
                    std::to_string(pool.ref_count(block)) + " but held by " +
                    std::to_string(refs[block]) + " block tables");
  }
}

// Checks one request's table and adds the blocks it holds to *refs.
void KvCacheManager::check_request(const RequestState& s, std::vector<uint32_t>* refs) const {
  // Messages are built only when a check fails.
  const auto who = [&s](const char* what) {
    return "request " + std::to_string(s.id) + ": " + what;
  };
  // More entries than tokens need only when lookahead slots are held.
  KVSIM_CHECK(s.table.size() >= ceil_div(s.num_tokens, block_size_),
              who("block table too small for its tokens"));
  const std::span<const BlockHash> hashes = hashes_of(s);
  KVSIM_CHECK(
      s.num_cached_blocks <= hashes.size() && s.num_cached_blocks <= s.num_tokens / block_size_,
      who("blocks offered to the cache that are not full or have no hash"));
  KVSIM_CHECK(s.table.empty() || s.table.back() != kNullBlock, who("the newest block was trimmed"));
  uint32_t swapped = 0;
  for (size_t k = 0; k < s.table.size(); ++k) {
    const BlockId block = s.table[k];
    KVSIM_CHECK(s.swapped ? !holds_block(block) : block != kSwappedBlock,
                who("block table mixes swapped and device entries"));
    swapped += block == kSwappedBlock ? 1 : 0;
    if (!holds_block(block)) continue;
    KVSIM_CHECK(block >= pool_->first_usable_block() && block < pool_->num_blocks(),
                who("block id out of range (or the null block)"));
    ++(*refs)[block];
    const std::optional<BlockHash> hash = pool_->block_hash(block);
    KVSIM_CHECK(!hash.has_value() || k >= hashes.size() || *hash == group_hash(hashes[k]),
                who("a block is cached under a hash other than the request's"));
  }
  KVSIM_CHECK(swapped == s.num_host_blocks, who("host blocks differ from swapped entries"));
}

}  // namespace kvsim
