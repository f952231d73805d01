// KvCacheManager: retention trimming (which blocks a sequence no longer needs).
#include <algorithm>

#include "core/base/check.h"
#include "core/base/checked_math.h"
#include "core/cache/kv_cache_manager.h"

namespace kvsim {
// Without scores a policy keeps [0, sink) and the last `window` positions of [0, num_tokens):
// the blocks lying wholly in the gap [sink, num_tokens - window) go. The gap only grows as the
// sequence does, so trim_cursor remembers where the previous trim stopped: O(1).
void KvCacheManager::trim_range(const RequestState& s, uint64_t sink, uint64_t window,
                                uint32_t* begin, uint32_t* end) const {
  *begin = 0;
  *end = 0;
  if (s.num_tokens <= sink + window) return;
  const uint64_t gap_end = s.num_tokens - window;  // first position kept by the window
  const uint64_t first = ceil_div(sink, block_size_);
  const uint64_t last = gap_end / block_size_;  // blocks [first, last) lie wholly in the gap
  *begin = static_cast<uint32_t>(std::max<uint64_t>(first, s.trim_cursor));
  *end = static_cast<uint32_t>(std::max<uint64_t>(last, *begin));
}

// Of table entries [begin, end), the blocks a trim makes free (held by this table alone):
// O(end - begin), asked only when the free queue alone might not cover an allocation.
uint32_t KvCacheManager::trim_frees(const RequestState& s, uint32_t begin, uint32_t end) const {
  uint32_t frees = 0;
  for (uint32_t k = begin; k < end; ++k) {
    if (holds_block(s.table[k]) && pool_->ref_count(s.table[k]) == 1) ++frees;
  }
  return frees;
}

uint32_t KvCacheManager::apply_trim(RequestState& s, uint32_t begin, uint32_t end) {
  uint32_t dropped = 0;
  for (uint32_t k = end; k-- > begin;) {  // tail first
    const BlockId block = s.table[k];
    if (!holds_block(block)) continue;
    pool_->release(block);
    s.table[k] = kNullBlock;
    log(CacheEventKind::kTrim, s.id, block, k);
    ++dropped;
  }
  s.trim_cursor = std::max(s.trim_cursor, end);
  counters_.num_trimmed_blocks += dropped;
  return dropped;
}

uint32_t KvCacheManager::trim(RequestId id, const RetentionPolicy& policy,
                              std::span<const float> scores) {
  RequestState& s = state(id);
  KVSIM_CHECK(!s.swapped, "trim() of a swapped-out request");
  KVSIM_CHECK(scores.empty() || scores.size() >= s.num_tokens,
              "trim() needs one score per position held");
  if (policy.uses_scores() && !scores.empty()) return trim_with_scores(s, policy, scores);
  const std::optional<uint64_t> window = policy.window_tokens();
  if (!window.has_value()) return 0;
  uint32_t begin = 0;
  uint32_t end = 0;
  trim_range(s, policy.sink_tokens(), *window, &begin, &end);
  return end > begin ? apply_trim(s, begin, end) : 0;
}

// With scores the kept positions can be anywhere: ask the policy about every held position,
// then drop, tail first, each block holding none of the kept ones. O(positions held).
uint32_t KvCacheManager::trim_with_scores(RequestState& s, const RetentionPolicy& policy,
                                          std::span<const float> scores) {
  scratch_positions_.clear();
  scratch_scores_.clear();
  for (size_t k = 0; k < s.table.size(); ++k) {
    if (!holds_block(s.table[k])) continue;
    const uint64_t end = std::min<uint64_t>((k + 1) * block_size_, s.num_tokens);
    for (uint64_t position = k * block_size_; position < end; ++position) {
      scratch_positions_.push_back(position);
      scratch_scores_.push_back(scores[position]);
    }
  }
  if (scratch_positions_.empty()) return 0;
  policy.select(scratch_positions_, scratch_scores_, &scratch_keep_);
  uint32_t dropped = 0;
  for (size_t k = s.table.size(); k-- > 0;) {
    const BlockId block = s.table[k];
    if (!holds_block(block)) continue;
    const auto kept = std::lower_bound(scratch_keep_.begin(), scratch_keep_.end(), k * block_size_);
    if (kept != scratch_keep_.end() && *kept < (k + 1) * block_size_) continue;
    pool_->release(block);
    s.table[k] = kNullBlock;
    log(CacheEventKind::kTrim, s.id, block, static_cast<uint32_t>(k));
    ++dropped;
  }
  counters_.num_trimmed_blocks += dropped;
  return dropped;
}

}  // namespace kvsim
