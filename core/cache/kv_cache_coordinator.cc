#include "core/cache/kv_cache_coordinator.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>

#include "core/base/check.h"
#include "core/base/checked_math.h"
#include "core/base/prefetch.h"
#include "core/cache/prefix_hash.h"
#include "core/cache/retention_policy.h"

namespace kvsim {
namespace {

// A recurrent group's "block" holds a whole sequence: ceil(tokens / this) is 1 for every
// sequence an engine can hold (max_model_len is far below it).
constexpr uint32_t kRecurrentBlockTokens = uint32_t{1} << 31;

// Mixed into a group's hashes (vLLM keys cached blocks by (hash, group id)).
constexpr uint64_t kGroupHashSalt = 0x67726f7570000000ull;  // "group"

bool is_attention(LayerKind kind) { return kind != LayerKind::kRecurrent; }

// Blocks an allocation takes from the free queue, less those its trim returns (< 0: it frees).
int64_t net_blocks(const KvCacheManager::BlockNeed& need) {
  return static_cast<int64_t>(need.blocks_needed) - static_cast<int64_t>(need.blocks_trimmed);
}

// Blocks before a hit point that a sliding group of window W must hold: the W - 1 keys the
// first computed token attends to besides itself.
uint64_t window_blocks(uint32_t window_tokens, uint32_t block_size) {
  return std::max<uint64_t>(
      1, ceil_div(uint64_t{window_tokens > 0 ? window_tokens - 1 : 0}, uint64_t{block_size}));
}

StatusOr<KvCacheConfig> group_config(const KvCacheConfig& config, const CacheGroupSpec& spec) {
  KvCacheConfig out = config;
  if (spec.kind == LayerKind::kRecurrent) out.block_size = kRecurrentBlockTokens;
  if (spec.kind == LayerKind::kSlidingWindow) {
    KVSIM_ASSIGN_OR_RETURN(const RetentionSpec window,
                           sliding_window_retention(spec.window_tokens));
    out.retention = make_retention_policy(window);
  }
  return out;
}

}  // namespace

StatusOr<std::vector<CacheGroupSpec>> cache_group_specs(const KvCachePlan& plan) {
  std::vector<CacheGroupSpec> out;
  uint32_t block = 0;
  for (const KvCacheGroup& group : plan.groups) {
    const KvCacheSpec& spec = plan.specs.at(group.spec);
    out.push_back(CacheGroupSpec{spec.kind, spec.window_tokens});
    if (!is_attention(spec.kind)) continue;
    if (block != 0 && spec.block_size != block) {
      return Status::invalid_argument(fmt::format(
          "the model's attention groups have block sizes {} and {} tokens: kvsim simulate "
          "hashes and hits every group at one block size",
          block, spec.block_size));
    }
    block = spec.block_size;
  }
  return out;
}

StatusOr<KvCacheCoordinator> KvCacheCoordinator::create(const KvCacheConfig& config,
                                                        std::span<const CacheGroupSpec> groups) {
  std::vector<CacheGroupSpec> specs(groups.begin(), groups.end());
  if (specs.empty()) specs.push_back(CacheGroupSpec{});
  // Attention groups first: the first group's hashes, hits and counters speak for the request.
  std::stable_partition(specs.begin(), specs.end(),
                        [](const CacheGroupSpec& s) { return is_attention(s.kind); });
  const bool hybrid = groups.size() > 1 || specs[0].kind == LayerKind::kRecurrent;
  if (hybrid && config.retention != nullptr && config.retention->window_tokens().has_value()) {
    return Status::invalid_argument(
        "a hybrid model takes no retention policy: its sliding windows are the model's");
  }
  if (hybrid && config.num_host_blocks > 0) {
    return Status::invalid_argument("a hybrid model's KV cache is not swapped (no host tier)");
  }
  std::vector<KvCacheManager> managers;
  managers.reserve(specs.size());
  for (const CacheGroupSpec& spec : specs) {
    KVSIM_ASSIGN_OR_RETURN(const KvCacheConfig c,
                           hybrid ? group_config(config, spec) : StatusOr<KvCacheConfig>(config));
    if (managers.empty()) {
      KVSIM_ASSIGN_OR_RETURN(KvCacheManager first, KvCacheManager::create(c));
      managers.push_back(std::move(first));
    } else {
      KVSIM_ASSIGN_OR_RETURN(KvCacheManager next,
                             KvCacheManager::create_in_pool(c, managers[0].share_pool()));
      managers.push_back(std::move(next));
    }
  }
  return KvCacheCoordinator(std::move(managers), std::move(specs));
}

KvCacheCoordinator::KvCacheCoordinator(std::vector<KvCacheManager> groups,
                                       std::vector<CacheGroupSpec> specs)
    : groups_(std::move(groups)), pool_(&groups_[0].pool()), specs_(std::move(specs)) {
  for (const CacheGroupSpec& spec : specs_) has_recurrent_ |= spec.kind == LayerKind::kRecurrent;
  scratch_hits_.resize(groups_.size());
  // The other attention groups read the first group's hashes. groups_ never reallocates and a
  // move of the coordinator moves its buffer, so the first manager stays where they point.
  for (size_t g = 1; g < groups_.size(); ++g) {
    if (is_attention(specs_[g].kind)) groups_[g].read_hashes_from(&groups_[0], kGroupHashSalt + g);
  }
}

void KvCacheCoordinator::add_request(RequestId id, uint64_t num_prompt_tokens,
                                     std::span<const BlockHash> block_hashes, uint64_t max_tokens) {
  // The first group keeps the hashes; the others read them (states are never cached).
  const bool cached = is_attention(specs_[0].kind);
  groups_[0].add_request(id, num_prompt_tokens,
                         cached ? block_hashes : std::span<const BlockHash>(), max_tokens);
  for (size_t g = 1; g < groups_.size(); ++g) {
    groups_[g].add_request(id, num_prompt_tokens, {}, max_tokens);
  }
}

void KvCacheCoordinator::append_block_hashes(RequestId id,
                                             std::span<const BlockHash> block_hashes) {
  if (!is_attention(specs_[0].kind)) return;  // a model of recurrent groups only
  groups_[0].append_block_hashes(id, block_hashes);
  for (size_t g = 1; g < groups_.size(); ++g) {
    if (is_attention(specs_[g].kind)) groups_[g].append_block_hashes(id, {});
  }
}

void KvCacheCoordinator::rewind(RequestId id, uint64_t num_rejected) {
  for (KvCacheManager& group : groups_) group.rewind(id, num_rejected);
}

void KvCacheCoordinator::free(RequestId id) {
  for (KvCacheManager& group : groups_) group.free(id);
}

void KvCacheCoordinator::preempt(RequestId id) {
  for (KvCacheManager& group : groups_) group.preempt(id);
}

std::optional<uint64_t> KvCacheCoordinator::swap_out(RequestId id) {
  KVSIM_CHECK(!hybrid(), "swap_out() of a hybrid model's request");
  return groups_[0].swap_out(id);
}

std::optional<uint64_t> KvCacheCoordinator::swap_in(RequestId id) {
  KVSIM_CHECK(!hybrid(), "swap_in() of a hybrid model's request");
  return groups_[0].swap_in(id);
}

uint64_t KvCacheCoordinator::peak_blocks(uint64_t seq_len, uint64_t max_chunk_tokens) const {
  uint64_t blocks = 0;
  for (const CacheGroupSpec& spec : specs_) {
    blocks += group_blocks_per_request(spec.kind, spec.window_tokens, block_size(), seq_len,
                                       max_chunk_tokens);
  }
  return blocks;
}

KvCacheStats KvCacheCoordinator::stats() const {
  KvCacheStats out = groups_[0].stats();
  for (size_t g = 1; g < groups_.size(); ++g) {
    const KvCacheStats s = groups_[g].stats();
    out.num_cow_copies += s.num_cow_copies;
    out.num_trimmed_blocks += s.num_trimmed_blocks;
  }
  return out;
}

void KvCacheCoordinator::check_invariants() const {
  pool_->check_invariants();
  std::vector<uint32_t> refs(pool_->num_blocks(), 0);
  for (const KvCacheManager& group : groups_) group.check_tables(&refs);
  check_ref_counts(*pool_, refs);
}

// ---- prefix hits --------------------------------------------------------------------------

uint64_t KvCacheCoordinator::group_hit_blocks(size_t g, RequestId id, uint64_t max_blocks) const {
  const std::span<const BlockHash> hashes = groups_[g].block_hashes(id);
  const KvCacheManager& group = groups_[g];
  const auto cached = [&](size_t i) {
    return pool_->find(group.group_hash(hashes[i])).has_value();
  };
  if (specs_[g].kind != LayerKind::kSlidingWindow) {
    const auto prefetch = [&](size_t i) {
      pool_->prefetch_cache_slot_of(group.group_hash(hashes[i]));
    };
    uint64_t n = 0;
    for (; n < max_blocks; ++n) {
      prefetch_ahead<16>(n, 0, max_blocks, prefetch);
      if (!cached(n)) break;
    }
    return n;
  }
  // Right to left: the first run of window_blocks cached blocks ends the hit; a run reaching
  // block 0 is a hit however short.
  const uint64_t needed = window_blocks(specs_[g].window_tokens, block_size());
  uint64_t run = 0;
  for (uint64_t i = max_blocks; i-- > 0;) {
    if (i >= 16) pool_->prefetch_cache_slot_of(group.group_hash(hashes[i - 16]));
    if (!cached(i)) {
      run = 0;
    } else if (++run >= needed) {
      return i + run;
    }
  }
  return run;
}

uint32_t KvCacheCoordinator::fill_group_hit(size_t g, RequestId id, uint64_t num_blocks,
                                            std::vector<BlockId>* out) const {
  const std::span<const BlockHash> hashes = groups_[g].block_hashes(id);
  uint64_t first = 0;  // entries before it lie outside a sliding window
  if (specs_[g].kind == LayerKind::kSlidingWindow) {
    const uint64_t needed = window_blocks(specs_[g].window_tokens, block_size());
    first = num_blocks > needed ? num_blocks - needed : 0;
  }
  out->insert(out->end(), first, kNullBlock);
  uint32_t num_free = 0;
  for (uint64_t i = first; i < num_blocks; ++i) {
    const std::optional<BlockId> block = pool_->find(groups_[g].group_hash(hashes[i]));
    KVSIM_CHECK(block.has_value(), "a group's hit block is not cached");
    out->push_back(*block);
    num_free += pool_->ref_count(*block) == 0 ? 1 : 0;
  }
  return num_free;
}

void KvCacheCoordinator::get_computed_blocks(RequestId id, PrefixHit* hit) const {
  if (!hybrid()) return groups_[0].get_computed_blocks(id, hit);
  hit->clear();
  KVSIM_CHECK(groups_[0].num_tokens(id) == 0, "get_computed_blocks() of a request with slots");
  if (has_recurrent_) return;  // states are not cached: no prefix is whole in every group
  // Lower the hit until every group has it (each group's hit at a length is at most it, and
  // is monotone in the length, so the order the groups are asked in does not change the
  // result). Full groups go first: their scan stops at the first miss, where a sliding
  // group's right-to-left scan walks a prompt that is not cached whole. A full group's hit at
  // a lower length is that length, so only sliding groups are asked again.
  uint64_t length = groups_[0].max_hit_blocks(id);
  for (size_t g = 0; g < groups_.size() && length > 0; ++g) {
    if (specs_[g].kind != LayerKind::kSlidingWindow) length = group_hit_blocks(g, id, length);
  }
  for (bool lowered = length > 0; lowered;) {
    lowered = false;
    for (size_t g = 0; g < groups_.size() && length > 0; ++g) {
      if (specs_[g].kind != LayerKind::kSlidingWindow) continue;
      const uint64_t group_length = group_hit_blocks(g, id, length);
      lowered |= group_length < length;
      length = group_length;
    }
  }
  if (length == 0) return;
  hit->num_free_blocks = fill_group_hit(0, id, length, &hit->blocks);
  for (size_t g = 1; g < groups_.size(); ++g) {
    hit->num_free_blocks += fill_group_hit(g, id, length, &hit->group_blocks);
  }
  hit->num_tokens = length * block_size();
}

std::span<const BlockId> KvCacheCoordinator::group_hit(size_t g, const PrefixHit& hit) const {
  if (g == 0) return hit.blocks;
  KVSIM_CHECK(hit.group_blocks.size() == (groups_.size() - 1) * hit.blocks.size(),
              "a prefix hit without every group's blocks");
  return std::span<const BlockId>(hit.group_blocks)
      .subspan((g - 1) * hit.blocks.size(), hit.blocks.size());
}

const PrefixHit& KvCacheCoordinator::group_prefix_hit(size_t g, const PrefixHit& hit) {
  PrefixHit& group = scratch_hits_[g];
  group.clear();
  if (hit.num_blocks() == 0) return group;
  const std::span<const BlockId> blocks = group_hit(g, hit);
  group.blocks.assign(blocks.begin(), blocks.end());
  group.num_tokens = hit.num_tokens;
  return group;
}

// ---- allocation ---------------------------------------------------------------------------

uint64_t KvCacheCoordinator::blocks_to_admit(const PrefixHit& hit, uint64_t num_tokens) const {
  return new_blocks_to_admit(hit.num_blocks(), num_tokens) + hit.num_free_blocks;
}

uint64_t KvCacheCoordinator::new_blocks_to_admit(uint64_t hit_blocks, uint64_t num_tokens) const {
  const uint64_t block = block_size();
  const uint64_t new_blocks = ceil_div(hit_blocks * block + num_tokens, block) - hit_blocks;
  if (!hybrid()) return new_blocks;
  uint64_t blocks = 0;
  for (const CacheGroupSpec& spec : specs_) blocks += is_attention(spec.kind) ? new_blocks : 1;
  return blocks;
}

std::optional<SlotAllocation> KvCacheCoordinator::allocate_slots(RequestId id,
                                                                 uint64_t num_new_tokens,
                                                                 const PrefixHit& hit,
                                                                 uint64_t num_lookahead_tokens) {
  if (!hybrid()) return groups_[0].allocate_slots(id, num_new_tokens, hit, num_lookahead_tokens);
  return allocate_hybrid(id, num_new_tokens, hit, num_lookahead_tokens);
}

std::optional<SlotAllocation> KvCacheCoordinator::allocate_hybrid(RequestId id,
                                                                  uint64_t num_new_tokens,
                                                                  const PrefixHit& hit,
                                                                  uint64_t lookahead) {
  if (surely_fits(id, num_new_tokens, hit, lookahead)) {
    scratch_order_.clear();  // any order: no group needs another's trim
    for (size_t g = 0; g < groups_.size(); ++g) scratch_order_.emplace_back(0, g);
    return commit_hybrid(id, num_new_tokens, hit, lookahead);
  }
  // 1. Every group's need; nothing changes unless their sum fits.
  uint64_t needed = 0;
  uint64_t trimmed = 0;
  scratch_order_.clear();
  for (size_t g = 0; g < groups_.size(); ++g) {
    const KvCacheManager::BlockNeed need =
        groups_[g].block_need(id, num_new_tokens, group_prefix_hit(g, hit), lookahead);
    needed += need.blocks_needed;
    trimmed += need.blocks_trimmed;
    scratch_order_.emplace_back(net_blocks(need), g);
  }
  // With a hit the request holds nothing yet: no group trims (the hit's entries before a window
  // are null already), so the order of step 3 does not matter and these nets serve.
  if (needed > uint64_t{pool_->num_free_blocks()} + trimmed) return std::nullopt;
  return commit_hybrid(id, num_new_tokens, hit, lookahead);
}

// An upper bound of what any group can need: every attention group a block per block boundary
// the new slots cross plus a copy, every recurrent group its one block, and the free hit blocks.
bool KvCacheCoordinator::surely_fits(RequestId id, uint64_t num_new_tokens, const PrefixHit& hit,
                                     uint64_t lookahead) const {
  const uint64_t block = block_size();
  const uint64_t held = groups_[0].num_tokens(id) + hit.num_tokens;
  const uint64_t per_group = ceil_div(held + num_new_tokens + lookahead, block) - held / block + 1;
  uint64_t bound = hit.num_free_blocks;
  for (const CacheGroupSpec& spec : specs_) bound += is_attention(spec.kind) ? per_group : 1;
  return bound <= pool_->num_free_blocks();
}

// Steps 2 and 3 of allocate_slots, in the order of scratch_order_ (which fits).
SlotAllocation KvCacheCoordinator::commit_hybrid(RequestId id, uint64_t num_new_tokens,
                                                 const PrefixHit& hit, uint64_t lookahead) {
  const bool takes_hit = hit.num_blocks() > 0;
  SlotAllocation out;
  // 2. Every group's hit blocks, before any group pops a block that could be one of them.
  if (takes_hit) {
    for (size_t g = 0; g < groups_.size(); ++g) {
      const auto taken = groups_[g].allocate_slots(id, 0, group_prefix_hit(g, hit));
      KVSIM_CHECK(taken.has_value(), "a counted prefix hit did not fit");
      if (g == 0) out.num_hit_blocks = taken->num_hit_blocks;
    }
  }
  // 3. New blocks, the groups whose trims free the most first: each then fits, as the sum does.
  std::sort(scratch_order_.begin(), scratch_order_.end());
  for (const auto& [net, g] : scratch_order_) {
    const auto allocated = groups_[g].allocate_slots(id, num_new_tokens, {}, lookahead);
    KVSIM_CHECK(allocated.has_value(), "a counted allocation did not fit");
    out.num_new_blocks += allocated->num_new_blocks;
    out.num_trimmed_blocks += allocated->num_trimmed_blocks;
  }
  return out;
}

}  // namespace kvsim
