#include "simulator/cluster/kv_tiers.h"

#include <algorithm>
#include <cmath>

#include "core/base/check.h"
#include "core/base/checked_math.h"
#include "core/base/prefetch.h"
#include "core/base/units.h"

namespace kvsim::sim {

int64_t transfer_ns(uint64_t bytes, double bytes_per_s, int64_t latency_ns) {
  const double wire_ns = std::ceil(static_cast<double>(bytes) / bytes_per_s * 1e9);
  return std::max<int64_t>(1, latency_ns + static_cast<int64_t>(wire_ns));
}

ReplicaTiers::ReplicaTiers(std::vector<TierPool*> tiers, std::vector<TierPath> paths,
                           uint64_t bytes_per_block, uint32_t block_size, uint32_t replica,
                           TierChunking chunking, const BlockPool* hbm, LatencySamples* load_waits)
    : tiers_(std::move(tiers)),
      paths_(std::move(paths)),
      load_queues_(tiers_.size()),
      write_queues_(tiers_.size()),
      offered_(tiers_.size(), 0),
      bytes_per_block_(bytes_per_block),
      block_size_(block_size),
      replica_(replica),
      chunk_(chunking.blocks_per_chunk),
      write_policy_(chunking.write_policy),
      hbm_(hbm),
      load_waits_(load_waits) {
  KVSIM_CHECK(!tiers_.empty() && tiers_.size() <= kMaxLowerTiers, "1 to 4 lower tiers");
  KVSIM_CHECK(paths_.size() == tiers_.size(), "one path per tier");
  KVSIM_CHECK(chunk_ >= 1 && hbm_ != nullptr, "tiers need a chunk size and the HBM pool");
  KVSIM_CHECK(load_waits_ != nullptr, "tiers need a tally of load waits");
  for (const TierPath& path : paths_) KVSIM_CHECK(path.bytes_per_s > 0, "tier bandwidth <= 0");
}

void ReplicaTiers::prefetch(BlockHash hash) const {
  for (const TierPool* tier : tiers_) tier->prefetch(hash);
}

size_t ReplicaTiers::tier_of(BlockHash key) const {
  size_t t = 0;
  while (t < tiers_.size() && !tiers_[t]->contains(key)) ++t;
  return t;
}

uint32_t ReplicaTiers::held_chunk_end(std::span<const BlockHash> hashes, uint32_t block) const {
  const uint64_t end = (uint64_t{block} / chunk_ + 1) * chunk_;
  if (end > hashes.size() || tier_of(hashes[end - 1]) == tiers_.size()) return 0;
  return static_cast<uint32_t>(end);
}

// Chunk k ends at block (k + 1) C; its key is the hash of its last block, (k + 1) C - 1.
LowerHit ReplicaTiers::find(std::span<const BlockHash> hashes, uint32_t hit_blocks,
                            uint32_t end) const {
  LowerHit hit;
  const uint32_t first = hit_blocks / chunk_;
  const uint32_t last = end / chunk_;  // chunks [first, last) end at or before `end`
  const auto key = [&](size_t k) { return hashes[(k + 1) * chunk_ - 1]; };
  for (uint32_t k = first; k < last; ++k) {
    prefetch_ahead<16>(k, first, last, [&](size_t j) { prefetch(key(j)); });
    const size_t t = tier_of(key(k));
    if (t == tiers_.size()) break;
    const uint32_t new_blocks = (k + 1) * chunk_ - std::max(k * chunk_, hit_blocks);
    hit.per_tier[t] += new_blocks;
    hit.num_blocks += new_blocks;
  }
  return hit;
}

void ReplicaTiers::take(std::span<const BlockHash> hashes, uint32_t hit_blocks,
                        uint32_t num_blocks) {
  const uint32_t end = hit_blocks + num_blocks;
  KVSIM_CHECK(end % chunk_ == 0, "a lower-tier hit ends inside a chunk");
  for (uint32_t k = hit_blocks / chunk_; k < end / chunk_; ++k) {
    const BlockHash key = hashes[(k + 1) * chunk_ - 1];
    const size_t t = tier_of(key);
    KVSIM_CHECK(t < tiers_.size(), "a chunk of a lower-tier hit left every tier");
    tiers_[t]->hit(key);
  }
}

ReplicaTiers::TransferSpan ReplicaTiers::schedule(size_t t, Queue& queue, uint64_t chunks,
                                                  int64_t ready_ns) {
  const uint64_t bytes = chunks * bytes_per_chunk();
  const int64_t start = std::max(ready_ns, queue.free_ns);
  const int64_t end = start + transfer_ns(bytes, paths_[t].bytes_per_s, paths_[t].latency_ns);
  queue.free_ns = end;
  TierTransferStats& stats = queue.stats;
  ++stats.transfers;
  stats.chunks += chunks;
  stats.bytes += bytes;
  stats.busy_ns += end - start;
  stats.queue_ns += start - ready_ns;
  return {.start_ns = start, .end_ns = end};
}

TransferRecord ReplicaTiers::record_of(const SimRequest& request, TransferKind kind, size_t t,
                                       int64_t ready_ns, TransferSpan span, uint64_t chunks) const {
  TransferRecord record = TransferRecord::of(kind, request.id, ready_ns, span.start_ns, span.end_ns,
                                             chunks * bytes_per_chunk(), replica_, replica_);
  record.to_host = kind == TransferKind::kTierWrite;  // down, away from HBM
  record.tier = static_cast<int32_t>(t);
  return record;
}

KvMatch ReplicaTiers::match(const SimRequest& request, std::span<const BlockHash> hashes,
                            const PrefixHit& hit, uint32_t num_free_blocks) {
  if (hit.num_free_blocks + 1 > num_free_blocks) return {true, {}};  // not even one block
  const uint64_t room = num_free_blocks - hit.num_free_blocks;
  const uint64_t limit =
      std::min<uint64_t>(hashes.size(), (request.known_tokens() - 1) / block_size_);
  if (hit.num_blocks() >= limit) return {};
  const auto end = static_cast<uint32_t>(std::min(limit, hit.num_blocks() + room + chunk_));
  const LowerHit lower = find(hashes, hit.num_blocks(), end);
  if (lower.num_blocks > room) return {true, {}};
  if (lower.num_blocks == 0) return {};
  ExternalKv kv;
  kv.num_tokens = uint64_t{lower.num_blocks} * block_size_;
  kv.blocks_per_tier = lower.per_tier;
  return {false, kv};
}

void ReplicaTiers::on_admit(std::span<const BlockHash> hashes, const PrefixHit& hit,
                            const ExternalKv& kv) {
  take(hashes, hit.num_blocks(), static_cast<uint32_t>(kv.num_tokens / block_size_));
}

// One load per tier the hit reaches into, each on the replica's path from that tier; a
// tier's share is whole chunks (only the first chunk of the run can be partly in HBM, so
// rounding its blocks up to chunks counts that chunk once).
void ReplicaTiers::start(uint32_t slot, SimRequest& request, const ExternalKv& kv,
                         KvTransfers& transfers) {
  const int64_t now = transfers.now_ns();
  int64_t last_end = now;
  for (size_t t = 0; t < tiers_.size(); ++t) {
    if (kv.blocks_per_tier[t] == 0) continue;
    const uint64_t chunks = ceil_div(uint64_t{kv.blocks_per_tier[t]}, uint64_t{chunk_});
    const auto span = schedule(t, load_queues_[t], chunks, now);
    transfers.wait_for(slot, record_of(request, TransferKind::kTierLoad, t, now, span, chunks));
    last_end = std::max(last_end, span.end_ns);
  }
  if (last_end > now) load_waits_->add(ns_to_s(last_end - now));
}

uint32_t ReplicaTiers::num_full_chunks(const SimRequest& request,
                                       std::span<const BlockHash> hashes) const {
  const uint64_t blocks = std::min<uint64_t>(hashes.size(), request.prompt_tokens / block_size_);
  return static_cast<uint32_t>(blocks / chunk_);
}

void ReplicaTiers::on_prefill_done(const SimRequest& request, std::span<const BlockHash> hashes,
                                   KvTransfers& transfers) {
  if (write_policy_ == TierWritePolicy::kWriteThrough) {
    write_new_chunks(request, hashes, transfers);
  } else if (chunk_ > 1) {
    note_chunks_in_hbm(request, hashes);
  }
}

// A chunk is noted only while HBM holds its last block (with retention trims a prompt's
// early blocks may be gone by the prefill's end), so every noted chunk leaves in_hbm_ when
// HBM evicts that block.
void ReplicaTiers::note_chunks_in_hbm(const SimRequest& request,
                                      std::span<const BlockHash> hashes) {
  const uint32_t full = num_full_chunks(request, hashes);
  for (uint32_t k = 0; k < full; ++k) {
    const BlockHash key = hashes[(k + 1) * chunk_ - 1];
    if (hbm_->find(key).has_value()) in_hbm_.insert(key, 1);
  }
}

void ReplicaTiers::write_new_chunks(const SimRequest& request, std::span<const BlockHash> hashes,
                                    KvTransfers& transfers) {
  const uint32_t full = num_full_chunks(request, hashes);
  const uint32_t first = request.cached_prompt_tokens / block_size_ / chunk_;
  if (first >= full) return;
  written_.clear();
  for (uint32_t k = first; k < full; ++k) written_.push_back(hashes[(k + 1) * chunk_ - 1]);
  int64_t ready = transfers.now_ns();
  for (size_t t = 0; t < tiers_.size(); ++t) {
    offered_[t] += written_.size();
    const uint64_t stored = tiers_[t]->put(written_);
    if (stored == 0) continue;
    const auto span = schedule(t, write_queues_[t], stored, ready);
    transfers.record(record_of(request, TransferKind::kTierWrite, t, ready, span, stored));
    ready = span.end_ns;
  }
}

void ReplicaTiers::on_evicted(std::span<const BlockHash> hashes) {
  if (chunk_ == 1) {
    offered_[0] += hashes.size();
    tiers_[0]->put(hashes);
    return;
  }
  demoted_.clear();
  for (const BlockHash hash : hashes) {
    if (in_hbm_.erase(hash)) demoted_.push_back(hash);
  }
  if (demoted_.empty()) return;
  offered_[0] += demoted_.size();
  tiers_[0]->put(demoted_);
}

}  // namespace kvsim::sim
