// ReplicaTiers: one replica's view of the lower tiers of its KV pool (host DRAM, SSD, ...),
// top to bottom, and the paths that load prefix blocks from them into its HBM.
//
//   HBM (the replica's BlockPool)            capacity: the capacity planner's block count
//     | evicted cached blocks demote          (BlockPool's EvictionSink = tier 0)
//   tier 0 (e.g. DRAM)  TierPool              capacity_gib / (KV bytes per block, all ranks)
//     | its evictions demote
//   tier 1 (e.g. SSD)   TierPool
//     | its evictions are dropped
//
// A tier is the replica's own, or shared by every replica of the cluster (one TierPool; a
// shared tier needs replicas of the same block geometry, checked at setup). Tiers never hold
// a block table's block; core/tier_pool.h keeps their contents and eviction order.
//
// To the replica's engine the tiers are a KvConnector (simulator/engine/kv_connector.h):
//   match    the waiting head's HBM hit continues into the tiers: the run of its next blocks
//            found below HBM (each in the topmost tier holding it), scanned no further than
//            one block past the room left (a longer run could not be admitted now); the head
//            is blocked when not even one block is free besides its hit, or when the run is
//            longer than the room left; an empty run leaves it to be computed
//   on_admit the run's blocks are counted as hits in their tiers and refreshed in their
//            eviction order (so the demotions the load's own HBM allocation causes do not
//            push them out first)
//   start    one load per tier the run reaches into (below)
//
// Timing (simulator/engine/engine.h calls load()):
//   demotion  write-through: the copy to the lower tier is made while the block is computed
//             (as LMCache and Mooncake Store do), so an eviction from HBM costs no time and
//             delays nothing; the blocks (and bytes) that moved down are counted.
//   load      a prefix hit in tier t: the request is admitted, takes HBM blocks for the hit
//             and waits for the load; other requests' iterations run meanwhile (vLLM's
//             asynchronous KV-connector loads: overlapped with the other requests' compute,
//             not with the request's own prefill, which starts when every load has ended).
//             Each replica has one path per tier, first come first served:
//               start = max(ready, path free), end = start + latency + bytes / bandwidth
//             bytes = blocks x KV bytes per block x devices of the replica (every TP rank's
//             shard; the bandwidth is the replica's aggregate, e.g. devices x PCIe).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/block_id.h"
#include "core/tier_pool.h"
#include "simulator/engine/kv_connector.h"
#include "simulator/engine/sim_request.h"

namespace kvsim::sim {

// A replica's path from one lower tier into HBM.
struct TierPath {
  double bytes_per_s = 0;  // > 0
  int64_t latency_ns = 0;
};

// The run of prefix blocks found below HBM: [begin, begin + num_blocks) of a request's
// hashes, each in the topmost tier that holds it.
struct LowerHit {
  uint32_t num_blocks = 0;
  std::array<uint32_t, kMaxLowerTiers> per_tier{};
};

// What a replica loaded from one tier.
struct TierLoadStats {
  uint64_t loads = 0;
  uint64_t blocks = 0;
  uint64_t bytes = 0;
  int64_t busy_ns = 0;   // sum of load durations
  int64_t queue_ns = 0;  // sum of (start - ready)
};

class ReplicaTiers final : public KvConnector {
 public:
  // `tiers` top to bottom (owned by the cluster; at most kMaxLowerTiers), one path each.
  // `bytes_per_block`: KV bytes of one block on every device of the replica together;
  // `block_size`: the replica's tokens per block; `replica`: its index (transfer records).
  ReplicaTiers(std::vector<TierPool*> tiers, std::vector<TierPath> paths, uint64_t bytes_per_block,
               uint32_t block_size, uint32_t replica);

  // KvConnector (see above).
  KvMatch match(const SimRequest& request, std::span<const BlockHash> hashes, const PrefixHit& hit,
                uint32_t num_free_blocks) override;
  void on_admit(std::span<const BlockHash> hashes, const PrefixHit& hit,
                const ExternalKv& kv) override;
  void start(uint32_t slot, SimRequest& request, const ExternalKv& kv,
             KvTransfers& transfers) override;

  size_t size() const { return tiers_.size(); }
  TierPool& tier(size_t t) const { return *tiers_[t]; }
  // The top tier: the sink of the replica's HBM evictions.
  TierPool* top() const { return tiers_.empty() ? nullptr : tiers_.front(); }

  // True when some lower tier holds the block.
  bool holds(BlockHash hash) const;
  // Prefetches where every tier looks for the block (see FlatIdMap::prefetch).
  void prefetch(BlockHash hash) const;
  // The blocks hashes[begin, end) found below HBM, stopping at the first one no tier holds.
  LowerHit find(std::span<const BlockHash> hashes, uint32_t begin, uint32_t end) const;
  // Counts the hit in each tier and refreshes its blocks' place in their eviction order (so
  // the demotions the load's own HBM allocation causes do not push them out first).
  void take(std::span<const BlockHash> hashes, uint32_t begin, const LowerHit& hit);

  // Schedules a load of `blocks` blocks from tier t that can start at `ready_ns`.
  struct LoadSpan {
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };
  LoadSpan load(size_t t, uint32_t blocks, int64_t ready_ns);
  uint64_t bytes_per_block() const { return bytes_per_block_; }
  const TierLoadStats& load_stats(size_t t) const { return load_stats_[t]; }
  const TierPath& path(size_t t) const { return paths_[t]; }

 private:
  std::vector<TierPool*> tiers_;
  std::vector<TierPath> paths_;
  std::vector<int64_t> path_free_ns_;
  std::vector<TierLoadStats> load_stats_;
  uint64_t bytes_per_block_;
  uint32_t block_size_;
  uint32_t replica_;
};

// Nanoseconds of `bytes` over a path of `bytes_per_s` after `latency_ns` (rounded up, >= 1).
int64_t transfer_ns(uint64_t bytes, double bytes_per_s, int64_t latency_ns);

}  // namespace kvsim::sim
