#include "core/cache/kv_cache_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "core/base/check.h"
#include "core/base/checked_math.h"
#include "core/base/prefetch.h"

namespace kvsim {
namespace {}  // namespace

StatusOr<KvCacheManager> KvCacheManager::create(const KvCacheConfig& config) {
  if (config.num_blocks < 2 || config.num_blocks > kMaxNumBlocks) {
    return Status::invalid_argument(
        fmt::format("KV cache num_blocks must be in [2, {}] (block 0 is the null block), got {}",
                    kMaxNumBlocks, config.num_blocks));
  }
  if (config.block_size == 0) {
    return Status::invalid_argument("KV cache block_size must be at least 1 token");
  }
  auto policy = make_eviction_policy(config.eviction, config.num_blocks);
  return KvCacheManager(config, std::make_shared<BlockPool>(config.num_blocks, std::move(policy),
                                                            NullBlock::kReserved));
}

StatusOr<KvCacheManager> KvCacheManager::create_in_pool(const KvCacheConfig& config,
                                                        std::shared_ptr<BlockPool> pool) {
  KVSIM_CHECK(pool != nullptr, "create_in_pool() needs a pool");
  if (config.num_blocks != pool->num_blocks()) {
    return Status::invalid_argument(
        fmt::format("a group's KV cache num_blocks ({}) must be its shared pool's ({})",
                    config.num_blocks, pool->num_blocks()));
  }
  if (config.block_size == 0) {
    return Status::invalid_argument("KV cache block_size must be at least 1 token");
  }
  return KvCacheManager(config, std::move(pool));
}

void KvCacheManager::read_hashes_from(const KvCacheManager* owner, uint64_t salt) {
  KVSIM_CHECK(owner != nullptr && owner != this && owner->hash_owner_ == nullptr,
              "read_hashes_from() needs another manager that keeps its own hashes");
  KVSIM_CHECK(index_.size() == 0, "read_hashes_from() of a manager holding requests");
  hash_owner_ = owner;
  hash_salt_ = salt;
}

KvCacheManager::KvCacheManager(const KvCacheConfig& config, std::shared_ptr<BlockPool> pool)
    : block_size_(config.block_size),
      bytes_per_block_(config.bytes_per_block),
      pool_(std::move(pool)),
      index_(config.expected_requests),
      num_host_blocks_(config.num_host_blocks) {
  // A policy that keeps everything never trims; don't pay for asking it.
  if (config.retention != nullptr && config.retention->window_tokens().has_value()) {
    retention_ = config.retention;
    retention_sink_ = retention_->sink_tokens();
    retention_window_ = *retention_->window_tokens();
  }
  states_.reserve(config.expected_requests);
  free_states_.reserve(config.expected_requests);
}

KvCacheManager::RequestState& KvCacheManager::state(RequestId id) {
  const uint32_t slot = index_.find(id);
  KVSIM_CHECK(slot != FlatIdMap::kEmpty, "unknown request id " + std::to_string(id));
  return states_[slot];
}

const KvCacheManager::RequestState& KvCacheManager::state(RequestId id) const {
  const uint32_t slot = index_.find(id);
  KVSIM_CHECK(slot != FlatIdMap::kEmpty, "unknown request id " + std::to_string(id));
  return states_[slot];
}

KvCacheManager::RequestState& KvCacheManager::new_state(RequestId id) {
  KVSIM_CHECK(!has_request(id), "request id " + std::to_string(id) + " is already in use");
  uint32_t slot = 0;
  if (free_states_.empty()) {
    slot = static_cast<uint32_t>(states_.size());
    states_.emplace_back();
  } else {
    slot = free_states_.back();
    free_states_.pop_back();
  }
  index_.insert(id, slot);
  RequestState& s = states_[slot];
  s.id = id;
  s.table.clear();  // clear() keeps the capacity: a recycled slot allocates nothing
  s.hashes.clear();
  s.num_tokens = 0;
  s.num_known_tokens = 0;
  s.num_cached_blocks = 0;
  s.trim_cursor = 0;
  s.num_host_blocks = 0;
  s.max_blocks = 0;
  s.swapped = false;
  return s;
}

void KvCacheManager::release_slot(RequestId id) {
  const uint32_t slot = index_.find(id);
  index_.erase(id);
  free_states_.push_back(slot);
}

void KvCacheManager::add_request(RequestId id, uint64_t num_prompt_tokens,
                                 std::span<const BlockHash> block_hashes, uint64_t max_tokens) {
  KVSIM_CHECK(block_hashes.size() <= num_prompt_tokens / block_size_,
              "more block hashes than full prompt blocks");
  RequestState& s = new_state(id);
  s.num_known_tokens = num_prompt_tokens;
  s.max_blocks = static_cast<uint32_t>(
      std::min<uint64_t>(ceil_div(max_tokens, block_size_), pool_->num_blocks()));
  if (hash_owner_ != nullptr) {
    KVSIM_CHECK(block_hashes.empty(), "hashes given to a manager that reads its owner's");
    return;
  }
  s.hashes.reserve(std::max<uint64_t>(s.max_blocks, block_hashes.size()));
  s.hashes.assign(block_hashes.begin(), block_hashes.end());
}

PrefixHit KvCacheManager::get_computed_blocks(RequestId id) const {
  PrefixHit hit;
  get_computed_blocks(id, &hit);
  return hit;
}

void KvCacheManager::get_computed_blocks(RequestId id, PrefixHit* hit) const {
  hit->clear();
  const RequestState& s = state(id);
  KVSIM_CHECK(s.num_tokens == 0 && !s.swapped, "get_computed_blocks() of a request with slots");
  const uint64_t max_blocks = max_hit_blocks(s);
  const std::span<const BlockHash> hashes = hashes_of(s);
  const auto prefetch = [&](size_t i) { pool_->prefetch_cache_slot_of(group_hash(hashes[i])); };
  for (uint32_t i = 0; i < max_blocks; ++i) {
    prefetch_ahead<16>(i, 0, max_blocks, prefetch);
    const std::optional<BlockId> block = pool_->find(group_hash(hashes[i]));
    if (!block) break;
    hit->blocks.push_back(*block);
    hit->num_free_blocks += pool_->ref_count(*block) == 0 ? 1 : 0;
  }
  hit->num_tokens = uint64_t{hit->num_blocks()} * block_size_;
}

uint64_t KvCacheManager::max_hit_blocks(RequestId id) const { return max_hit_blocks(state(id)); }

uint64_t KvCacheManager::max_hit_blocks(const RequestState& s) const {
  if (!pool_->caches_prefixes() || s.num_known_tokens == 0) return 0;
  // At least one token is computed (its logits are needed): a hit stops one token short.
  return std::min<uint64_t>(hashes_of(s).size(), (s.num_known_tokens - 1) / block_size_);
}

// Counts what allocate_slots needs without changing anything.
KvCacheManager::AllocationPlan KvCacheManager::plan_allocation(const RequestState& s,
                                                               uint64_t num_new_tokens,
                                                               uint64_t num_lookahead_tokens,
                                                               std::span<const BlockId> hit) const {
  AllocationPlan plan;
  if (retention_ != nullptr) {
    trim_range(s, retention_sink_, retention_window_, &plan.trim_begin, &plan.trim_end);
  }
  const std::span<const BlockHash> hashes =
      hit.empty() ? std::span<const BlockHash>() : hashes_of(s);
  for (size_t i = 0; i < hit.size(); ++i) {
    if (!holds_block(hit[i])) continue;  // before a sliding window: nothing to take
    KVSIM_CHECK(pool_->block_hash(hit[i]) == group_hash(hashes[i]),
                "a prefix-hit block no longer holds the content it was found for (the pool "
                "changed between get_computed_blocks and allocate_slots)");
    plan.free_hits += pool_->ref_count(hit[i]) == 0 ? 1 : 0;
  }
  plan.hit_tokens = uint64_t{hit.size()} * block_size_;
  plan.total_tokens = plan.hit_tokens + s.num_tokens + num_new_tokens;
  // Lookahead blocks held from an earlier call count: the table never shrinks here.
  const uint64_t slot_blocks = ceil_div(plan.total_tokens + num_lookahead_tokens, block_size_);
  const uint64_t table_blocks = s.table.size() + hit.size();
  plan.new_entries = slot_blocks > table_blocks ? slot_blocks - table_blocks : 0;
  plan.copy_on_write = num_new_tokens > 0 && s.num_tokens % block_size_ != 0 &&
                       holds_block(s.table.back()) && pool_->ref_count(s.table.back()) > 1;
  return plan;
}

KvCacheManager::BlockNeed KvCacheManager::block_need(RequestId id, uint64_t num_new_tokens,
                                                     const PrefixHit& hit,
                                                     uint64_t num_lookahead_tokens) const {
  const AllocationPlan plan =
      plan_allocation(state(id), num_new_tokens, num_lookahead_tokens, hit.blocks);
  return BlockNeed{plan.blocks_needed(), trim_frees(state(id), plan.trim_begin, plan.trim_end)};
}

std::optional<SlotAllocation> KvCacheManager::allocate_slots(RequestId id,
                                                             uint64_t num_new_tokens) {
  return allocate_slots(id, num_new_tokens, PrefixHit{});
}

std::optional<SlotAllocation> KvCacheManager::allocate_slots(RequestId id, uint64_t num_new_tokens,
                                                             const PrefixHit& hit,
                                                             uint64_t num_lookahead_tokens) {
  RequestState& s = state(id);
  KVSIM_CHECK(!s.swapped, "allocate_slots() of a swapped-out request");
  // Most calls are a running request's decode whose slots fit in the blocks it holds: no block
  // moves, only the counts (what the general path below does then: no trim when the window
  // has crossed no block boundary, no copy-on-write without a fork, no prefix query for a
  // request holding slots).
  if (hit.blocks.empty() && !forked_ && s.num_tokens > 0 && trims_nothing(s) &&
      ceil_div(s.num_tokens + num_new_tokens + num_lookahead_tokens, block_size_) <=
          s.table.size()) {
    s.num_tokens += num_new_tokens;
    s.num_known_tokens = std::max(s.num_known_tokens, s.num_tokens);
    register_full_blocks(s);
    return SlotAllocation{};
  }
  const uint32_t num_computed_blocks = hit.num_blocks();
  const std::span<const BlockHash> hashes =
      num_computed_blocks == 0 ? std::span<const BlockHash>() : hashes_of(s);
  KVSIM_CHECK(
      num_computed_blocks == 0 || (s.num_tokens == 0 && num_computed_blocks <= hashes.size()),
      "prefix-hit blocks given for a request that holds slots or lacks their hashes");
  const AllocationPlan plan = plan_allocation(s, num_new_tokens, num_lookahead_tokens, hit.blocks);
  if (plan.blocks_needed() > pool_->num_free_blocks() &&
      plan.blocks_needed() >
          pool_->num_free_blocks() + trim_frees(s, plan.trim_begin, plan.trim_end)) {
    return std::nullopt;
  }

  SlotAllocation result;
  if (s.table.capacity() < s.max_blocks) s.table.reserve(s.max_blocks);  // once, when admitted
  if (plan.trim_end > plan.trim_begin) {
    result.num_trimmed_blocks = apply_trim(s, plan.trim_begin, plan.trim_end);
  }
  if (s.num_tokens == 0 && pool_->caches_prefixes()) {
    counters_.num_prefix_query_tokens += std::max(s.num_known_tokens, plan.total_tokens);
  }
  // Hits are touched before any allocation, so no allocation can evict one of them.
  for (uint32_t i = 0; i < num_computed_blocks; ++i) {
    const BlockId block = hit.blocks[i];
    s.table.push_back(block);
    if (!holds_block(block)) continue;
    pool_->touch(block);
    log(CacheEventKind::kHit, id, block, i, group_hash(hashes[i]));
  }
  s.num_cached_blocks = std::max(s.num_cached_blocks, num_computed_blocks);
  counters_.num_prefix_hit_tokens += plan.hit_tokens;
  result.num_hit_blocks = num_computed_blocks;
  if (plan.copy_on_write) result.copy = copy_last_block(s);
  const size_t first_new = s.table.size();
  s.table.resize(first_new + plan.new_entries);
  if (event_log_ == nullptr) {
    pool_->allocate(std::span<BlockId>(s.table).subspan(first_new));  // prefetched, in a batch
  } else {
    for (size_t k = first_new; k < s.table.size(); ++k) {  // each eviction, then its allocation
      s.table[k] = pool_->allocate();
      log(CacheEventKind::kAllocate, id, s.table[k], static_cast<uint32_t>(k));
    }
  }
  result.num_new_blocks = static_cast<uint32_t>(plan.new_entries) + (plan.copy_on_write ? 1 : 0);
  s.num_tokens = plan.total_tokens;
  s.num_known_tokens = std::max(s.num_known_tokens, plan.total_tokens);
  register_full_blocks(s);
  return result;
}

// Copy-on-write: the shared, partially filled last block is replaced by a private copy.
BlockCopy KvCacheManager::copy_last_block(RequestState& s) {
  const BlockId shared = s.table.back();
  const BlockId copy = pool_->allocate();
  s.table.back() = copy;
  pool_->release(shared);
  ++counters_.num_cow_copies;
  log(CacheEventKind::kCopy, s.id, shared, static_cast<uint32_t>(s.table.size() - 1), 0, copy);
  return BlockCopy{shared, copy, static_cast<uint32_t>(s.num_tokens % block_size_)};
}

void KvCacheManager::register_full_blocks(RequestState& s) {
  const uint64_t num_full = s.num_tokens / block_size_;
  if (num_full <= s.num_cached_blocks) return;  // most decode steps: nothing newly full
  const std::span<const BlockHash> hashes = hashes_of(s);
  const uint64_t limit = std::min<uint64_t>(num_full, hashes.size());
  const auto prefetch = [&](size_t i) { pool_->prefetch_cache_slot_of(group_hash(hashes[i])); };
  for (uint32_t i = s.num_cached_blocks; i < limit; ++i) {
    prefetch_ahead<24>(i, s.num_cached_blocks, limit, prefetch);
    const BlockId block = s.table[i];
    if (!holds_block(block)) continue;
    const BlockHash hash = group_hash(hashes[i]);
    if (pool_->cache(block, hash)) log(CacheEventKind::kCache, s.id, block, i, hash);
  }
  s.num_cached_blocks = std::max<uint32_t>(s.num_cached_blocks, static_cast<uint32_t>(limit));
}

void KvCacheManager::append_block_hashes(RequestId id, std::span<const BlockHash> block_hashes) {
  RequestState& s = state(id);
  KVSIM_CHECK(hash_owner_ == nullptr || block_hashes.empty(),
              "hashes given to a manager that reads its owner's");
  s.hashes.insert(s.hashes.end(), block_hashes.begin(), block_hashes.end());
  if (!s.swapped) register_full_blocks(s);
}

void KvCacheManager::rewind(RequestId id, uint64_t num_rejected) {
  RequestState& s = state(id);
  KVSIM_CHECK(!s.swapped && num_rejected <= s.num_tokens &&
                  (s.num_tokens - num_rejected) / block_size_ >= s.num_cached_blocks,
              "rewind() past the request's slots or into a block in the prefix cache");
  if (s.num_known_tokens == s.num_tokens) s.num_known_tokens -= num_rejected;
  s.num_tokens -= num_rejected;
}

void KvCacheManager::release_table(RequestState& s) {
  if (s.swapped) {
    num_host_used_blocks_ -= s.num_host_blocks;
    s.num_host_blocks = 0;
    s.swapped = false;
  }
  for (size_t k = s.table.size(); k-- > 0;) {  // tail first
    const BlockId block = s.table[k];
    if (!holds_block(block)) continue;
    pool_->release(block);
    log(CacheEventKind::kFree, s.id, block, static_cast<uint32_t>(k));
  }
  s.table.clear();
}

void KvCacheManager::free(RequestId id) {
  release_table(state(id));
  release_slot(id);
}

void KvCacheManager::preempt(RequestId id) { preempt(id, 0); }

void KvCacheManager::preempt(RequestId id, uint64_t num_known_tokens) {
  RequestState& s = state(id);
  s.num_known_tokens = std::max({s.num_known_tokens, s.num_tokens, num_known_tokens});
  release_table(s);
  s.num_tokens = 0;
  s.num_cached_blocks = 0;
  s.trim_cursor = 0;
  ++counters_.num_preemptions;
}

void KvCacheManager::fork(RequestId parent, RequestId child) {
  KVSIM_CHECK(!state(parent).swapped, "fork() of a swapped-out request");
  KVSIM_CHECK(state(parent).table.size() <= ceil_div(state(parent).num_tokens, block_size_),
              "fork() of a request holding lookahead slots");
  forked_ = true;  // blocks may now be shared partly filled: allocate_slots checks for copies
  RequestState& c = new_state(child);  // may move states_: look the parent up afterwards
  const RequestState& p = state(parent);
  c.table.assign(p.table.begin(), p.table.end());
  c.hashes.assign(p.hashes.begin(), p.hashes.end());
  c.num_tokens = p.num_tokens;
  c.num_known_tokens = p.num_known_tokens;
  c.num_cached_blocks = p.num_cached_blocks;
  c.trim_cursor = p.trim_cursor;
  for (BlockId block : c.table) {
    if (holds_block(block)) pool_->share(block);
  }
}

std::span<const BlockId> KvCacheManager::block_table(RequestId id) const { return state(id).table; }

std::span<const BlockHash> KvCacheManager::block_hashes(RequestId id) const {
  return hashes_of(state(id));
}

uint64_t KvCacheManager::num_tokens(RequestId id) const { return state(id).num_tokens; }

bool KvCacheManager::is_swapped(RequestId id) const { return state(id).swapped; }

double KvCacheManager::usage() const {
  return static_cast<double>(pool_->num_used_blocks()) / pool_->num_usable_blocks();
}

KvCacheStats KvCacheManager::stats() const {
  KvCacheStats out = counters_;
  out.num_blocks = pool_->num_usable_blocks();
  out.num_used_blocks = pool_->num_used_blocks();
  out.num_cached_free_blocks = pool_->num_cached_free_blocks();
  out.num_empty_free_blocks = pool_->num_free_blocks() - pool_->num_cached_free_blocks();
  out.num_requests = index_.size();
  out.num_host_blocks = num_host_blocks_;
  out.num_host_used_blocks = num_host_used_blocks_;
  out.num_evictions = pool_->num_evictions();
  return out;
}

void KvCacheManager::set_event_log(std::vector<CacheEvent>* log) {
  event_log_ = log;
  pool_->set_event_log(log);
}

void KvCacheManager::log(CacheEventKind kind, RequestId request, BlockId block, uint32_t index,
                         BlockHash hash, BlockId other) {
  if (event_log_ == nullptr) return;
  CacheEvent event;
  event.kind = kind;
  event.request = request;
  event.block = block;
  event.other_block = other;
  event.index = index;
  event.hash = hash;
  event_log_->push_back(event);
}

}  // namespace kvsim
