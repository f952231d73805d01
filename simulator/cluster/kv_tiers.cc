#include "simulator/cluster/kv_tiers.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "core/prefetch.h"

namespace kvsim::sim {

int64_t transfer_ns(uint64_t bytes, double bytes_per_s, int64_t latency_ns) {
  const double wire_ns = std::ceil(static_cast<double>(bytes) / bytes_per_s * 1e9);
  return std::max<int64_t>(1, latency_ns + static_cast<int64_t>(wire_ns));
}

ReplicaTiers::ReplicaTiers(std::vector<TierPool*> tiers, std::vector<TierPath> paths,
                           uint64_t bytes_per_block, uint32_t block_size, uint32_t replica)
    : tiers_(std::move(tiers)),
      paths_(std::move(paths)),
      path_free_ns_(tiers_.size(), 0),
      load_stats_(tiers_.size()),
      bytes_per_block_(bytes_per_block),
      block_size_(block_size),
      replica_(replica) {
  KVSIM_CHECK(tiers_.size() <= kMaxLowerTiers, "too many lower tiers");
  KVSIM_CHECK(paths_.size() == tiers_.size(), "one load path per tier");
  for (const TierPath& path : paths_) KVSIM_CHECK(path.bytes_per_s > 0, "tier bandwidth <= 0");
}

void ReplicaTiers::prefetch(BlockHash hash) const {
  for (const TierPool* tier : tiers_) tier->prefetch(hash);
}

bool ReplicaTiers::holds(BlockHash hash) const {
  for (const TierPool* tier : tiers_) {
    if (tier->contains(hash)) return true;
  }
  return false;
}

LowerHit ReplicaTiers::find(std::span<const BlockHash> hashes, uint32_t begin, uint32_t end) const {
  LowerHit hit;
  for (uint32_t i = begin; i < end; ++i) {
    prefetch_ahead<16>(i, begin, end, [&](size_t j) { prefetch(hashes[j]); });
    size_t t = 0;
    while (t < tiers_.size() && !tiers_[t]->contains(hashes[i])) ++t;
    if (t == tiers_.size()) break;
    ++hit.per_tier[t];
    ++hit.num_blocks;
  }
  return hit;
}

void ReplicaTiers::take(std::span<const BlockHash> hashes, uint32_t begin, const LowerHit& hit) {
  for (uint32_t i = begin; i < begin + hit.num_blocks; ++i) {
    size_t t = 0;
    while (!tiers_[t]->contains(hashes[i])) ++t;  // find() saw it, so some tier holds it
    tiers_[t]->hit(hashes[i]);
  }
}

ReplicaTiers::LoadSpan ReplicaTiers::load(size_t t, uint32_t blocks, int64_t ready_ns) {
  const uint64_t bytes = uint64_t{blocks} * bytes_per_block_;
  const int64_t start = std::max(ready_ns, path_free_ns_[t]);
  const int64_t end = start + transfer_ns(bytes, paths_[t].bytes_per_s, paths_[t].latency_ns);
  path_free_ns_[t] = end;
  TierLoadStats& stats = load_stats_[t];
  ++stats.loads;
  stats.blocks += blocks;
  stats.bytes += bytes;
  stats.busy_ns += end - start;
  stats.queue_ns += start - ready_ns;
  return {start, end};
}

KvMatch ReplicaTiers::match(const SimRequest& request, std::span<const BlockHash> hashes,
                            const PrefixHit& hit, uint32_t num_free_blocks) {
  if (hit.num_free_blocks + 1 > num_free_blocks) return {true, {}};  // not even one block
  const uint64_t room = num_free_blocks - hit.num_free_blocks;
  const uint64_t cap = std::min<uint64_t>(
      {hashes.size(), (request.known_tokens() - 1) / block_size_, hit.num_blocks() + room + 1});
  if (hit.num_blocks() >= cap) return {};
  const LowerHit lower = find(hashes, hit.num_blocks(), static_cast<uint32_t>(cap));
  if (lower.num_blocks > room) return {true, {}};
  if (lower.num_blocks == 0) return {};
  ExternalKv kv;
  kv.num_tokens = uint64_t{lower.num_blocks} * block_size_;
  kv.blocks_per_tier = lower.per_tier;
  return {false, kv};
}

void ReplicaTiers::on_admit(std::span<const BlockHash> hashes, const PrefixHit& hit,
                            const ExternalKv& kv) {
  LowerHit lower;
  lower.num_blocks = static_cast<uint32_t>(kv.num_tokens / block_size_);
  lower.per_tier = kv.blocks_per_tier;
  take(hashes, hit.num_blocks(), lower);
}

// One load per tier the hit reaches into, each on the replica's path from that tier.
void ReplicaTiers::start(uint32_t slot, SimRequest& request, const ExternalKv& kv,
                         KvTransfers& transfers) {
  const int64_t now = transfers.now_ns();
  for (size_t t = 0; t < tiers_.size(); ++t) {
    if (kv.blocks_per_tier[t] == 0) continue;
    const LoadSpan span = load(t, kv.blocks_per_tier[t], now);
    TransferRecord record =
        TransferRecord::of(TransferKind::kTierLoad, request.id, now, span.start_ns, span.end_ns,
                           uint64_t{kv.blocks_per_tier[t]} * bytes_per_block_, replica_, replica_);
    record.tier = static_cast<int32_t>(t);
    transfers.wait_for(slot, record);
  }
}

}  // namespace kvsim::sim
