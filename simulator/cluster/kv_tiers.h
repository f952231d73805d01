// ReplicaTiers: one replica's view of the lower tiers of its KV pool (host DRAM, SSD, ...),
// top to bottom, and the paths that move KV between them and its HBM.
//
//   HBM (the replica's BlockPool)            capacity: the capacity planner's block count
//     | on_evict: evicted chunks demote       (the BlockPool's EvictionSink is this object)
//     | write_through: new chunks are copied into every tier when a prefill ends
//   tier 0 (e.g. DRAM)  TierPool              capacity_gib / (KV bytes of one chunk)
//     | on_evict: its evictions demote (write_through: dropped, tier 1 has its own copy)
//   tier 1 (e.g. SSD)   TierPool
//     | its evictions are dropped
//
// A tier is the replica's own, or shared by every replica of the cluster (one TierPool; a
// shared tier needs replicas of the same block geometry, checked at setup). Tiers never hold
// a block table's block; core/cache/tier_pool.h keeps their contents and eviction order.
//
// Chunks (simulator/cluster/tier_policy.h): the tiers store C consecutive prompt blocks of a
// request as one entry, chunk k = blocks [kC, (k+1)C), keyed by the hash of its last block
// (hashes chain, so it names the whole prefix). A chunk is stored, found, loaded and evicted
// as one unit, so it is never split across tiers; only full chunks of a prompt exist below
// HBM (the partial last chunk is recomputed; LMCache's save_unfull_chunk: false, and it
// does not save decode KV either). C = 1 is block-granular: every block HBM evicts demotes.
//
//   demotion (on_evict, C > 1) a chunk goes down when HBM evicts its last block, if the chunk
//            was in HBM whole when a prefill that held it ended (each full prompt chunk is
//            noted then; in_hbm_). Under lru with a request's blocks freed tail first, the
//            last block of a chunk goes before the rest of it, whose hashes then just drop.
//   write_through  when a request's prefill ends, its newly computed full chunks — those
//            from the chunk holding the end of its first-admission hit on (LMCache aligns its
//            save's skip down to a chunk) — are put into every tier; a tier that already
//            holds one refreshes it and moves no bytes.
//
// To the replica's engine the tiers are a KvConnector (simulator/engine/kv_connector.h):
//   match    the waiting head's HBM hit (h blocks) continues into the tiers: the run of whole
//            chunks from the chunk holding block h, each found in the topmost tier holding
//            it, scanned no further than one chunk past the room left; the run ends at a
//            chunk end no later than the one-token-short limit. The head is blocked when not
//            even one block is free besides its hit, or when the run needs more blocks than
//            the room left; an empty run leaves it to be computed. (LMCache: vLLM's hit h,
//            aligned down to a chunk, is where its retrieve starts; a hit is whole chunks.)
//   on_admit the run's chunks are counted as hits in their tiers and refreshed in their
//            eviction order (so the demotions the load's own HBM allocation causes do not
//            push them out first)
//   start    one load per tier the run reaches into (below)
//   on_prefill_done  write_through: the writes above; on_evict: notes the full chunks
//
// Timing:
//   load     a prefix hit in tier t: the request is admitted, takes HBM blocks for the hit
//            and waits for the load; other requests' iterations run meanwhile (vLLM's
//            asynchronous KV-connector loads: overlapped with the other requests' compute,
//            not with the request's own prefill, which starts when every load has ended).
//            A chunk loads whole, also the part of the first chunk HBM already holds.
//   write    write_through: a write per tier that stores new chunks, on the replica's write
//            path to that tier (one per tier, first come first served, beside the load
//            path: PCIe is full duplex; an SSD's reads and writes do not contend here); the
//            write into tier t + 1 is ready when the one into tier t has ended. Nothing waits
//            for a write (LMCache and HiCache save asynchronously); a written chunk is found
//            from the prefill's end on, an optimistic bound by one write's time.
//   demotion on_evict: costs no time and delays nothing (HiCache's write_back would hold the
//            HBM slot until the copy is done); the entries that moved down are counted.
//   Both paths: start = max(ready, path free), end = start + latency + bytes / bandwidth,
//   bytes = chunks x C x KV bytes per block x devices of the replica (every TP rank's shard;
//   the bandwidth is the replica's aggregate, e.g. devices x PCIe).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/base/flat_id_map.h"
#include "core/cache/block_id.h"
#include "core/cache/block_pool.h"
#include "core/cache/tier_pool.h"
#include "simulator/cluster/tier_policy.h"
#include "simulator/engine/kv_connector.h"
#include "simulator/engine/sim_request.h"
#include "simulator/output/latency_samples.h"

namespace kvsim::sim {

// A replica's path between one lower tier and HBM (each direction has its own queue).
struct TierPath {
  double bytes_per_s = 0;  // > 0
  int64_t latency_ns = 0;
};

// The run of prefix blocks found below HBM after an HBM hit: blocks [hit, hit + num_blocks)
// of a request, whole chunks each in the topmost tier holding it; per_tier counts the blocks
// new to HBM that each tier supplies (only the first chunk can be partly in HBM already).
struct LowerHit {
  uint32_t num_blocks = 0;
  std::array<uint32_t, kMaxLowerTiers> per_tier{};
};

// What a replica moved over one tier's path in one direction.
struct TierTransferStats {
  uint64_t transfers = 0;
  uint64_t chunks = 0;
  uint64_t bytes = 0;
  int64_t busy_ns = 0;   // sum of transfer durations
  int64_t queue_ns = 0;  // sum of (start - ready)
};

class ReplicaTiers final : public KvConnector, public EvictionSink {
 public:
  // `tiers` top to bottom (owned by the cluster; at most kMaxLowerTiers), one path each.
  // `bytes_per_block`: KV bytes of one block on every device of the replica together;
  // `block_size`: the replica's tokens per block; `replica`: its index (transfer records);
  // `hbm`: the replica's device pool (where on_evict notes chunks); `load_waits`: where each
  // request that loaded goes, in seconds from its first admission to the end of its last load
  // (what its prefill waited: the TTFT the loads added; the cluster's, shared by its replicas).
  ReplicaTiers(std::vector<TierPool*> tiers, std::vector<TierPath> paths, uint64_t bytes_per_block,
               uint32_t block_size, uint32_t replica, TierChunking chunking, const BlockPool* hbm,
               LatencySamples* load_waits);

  // KvConnector (see above).
  KvMatch match(const SimRequest& request, std::span<const BlockHash> hashes, const PrefixHit& hit,
                uint32_t num_free_blocks) override;
  void on_admit(std::span<const BlockHash> hashes, const PrefixHit& hit,
                const ExternalKv& kv) override;
  void start(uint32_t slot, SimRequest& request, const ExternalKv& kv,
             KvTransfers& transfers) override;
  void on_prefill_done(const SimRequest& request, std::span<const BlockHash> hashes,
                       KvTransfers& transfers) override;
  // EvictionSink: HBM's evicted blocks (on_evict); the chunks among them go to tier 0.
  void on_evicted(std::span<const BlockHash> hashes) override;

  size_t size() const { return tiers_.size(); }
  TierPool& tier(size_t t) const { return *tiers_[t]; }
  uint32_t blocks_per_chunk() const { return chunk_; }
  TierWritePolicy write_policy() const { return write_policy_; }
  // KV bytes of one chunk (all of the replica's devices).
  uint64_t bytes_per_chunk() const { return bytes_per_block_ * chunk_; }

  // The end (exclusive) of chunk containing block `block` when some tier holds that chunk
  // and the request has all of its blocks; 0 otherwise (for routing by cached prefix).
  uint32_t held_chunk_end(std::span<const BlockHash> hashes, uint32_t block) const;
  // The run of whole chunks found below HBM after an HBM hit of `hit_blocks` blocks, over
  // chunks that end at or before block `end`, stopping at the first chunk no tier holds.
  LowerHit find(std::span<const BlockHash> hashes, uint32_t hit_blocks, uint32_t end) const;
  // Counts the run's chunks as hits in their tiers and refreshes their place in their
  // eviction order.
  void take(std::span<const BlockHash> hashes, uint32_t hit_blocks, uint32_t num_blocks);

  const TierTransferStats& load_stats(size_t t) const { return load_queues_[t].stats; }
  const TierTransferStats& write_stats(size_t t) const { return write_queues_[t].stats; }
  const TierPath& path(size_t t) const { return paths_[t]; }
  // Entries this replica put into tier t (demoted or written; for the conservation check).
  uint64_t offered(size_t t) const { return offered_[t]; }
  // Full chunks noted in HBM (on_evict with C > 1; 0 otherwise).
  uint32_t num_chunks_in_hbm() const { return in_hbm_.size(); }

 private:
  // A path's direction: when it is next free and what it moved.
  struct Queue {
    int64_t free_ns = 0;
    TierTransferStats stats;
  };
  struct TransferSpan {
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };
  // Schedules `chunks` chunks over tier t's path in `queue`, ready at `ready_ns`.
  TransferSpan schedule(size_t t, Queue& queue, uint64_t chunks, int64_t ready_ns);
  // The topmost tier holding `key`, or size().
  size_t tier_of(BlockHash key) const;
  void prefetch(BlockHash hash) const;
  // Full chunks of a request's prompt (its hashes cover them and the prompt fills them).
  uint32_t num_full_chunks(const SimRequest& request, std::span<const BlockHash> hashes) const;
  void note_chunks_in_hbm(const SimRequest& request, std::span<const BlockHash> hashes);
  void write_new_chunks(const SimRequest& request, std::span<const BlockHash> hashes,
                        KvTransfers& transfers);
  TransferRecord record_of(const SimRequest& request, TransferKind kind, size_t t, int64_t ready_ns,
                           TransferSpan span, uint64_t chunks) const;

  std::vector<TierPool*> tiers_;
  std::vector<TierPath> paths_;
  std::vector<Queue> load_queues_, write_queues_;
  std::vector<uint64_t> offered_;
  uint64_t bytes_per_block_;
  uint32_t block_size_;
  uint32_t replica_;
  uint32_t chunk_;  // blocks per chunk
  TierWritePolicy write_policy_;
  const BlockPool* hbm_;
  LatencySamples* load_waits_;      // the cluster's
  FlatIdMap in_hbm_;                // on_evict, C > 1: last-block hash of each noted chunk -> 1
  std::vector<BlockHash> written_;  // chunk keys of one write-through put
  std::vector<BlockHash> demoted_;  // chunk keys of one demotion
};

// Nanoseconds of `bytes` over a path of `bytes_per_s` after `latency_ns` (rounded up, >= 1).
int64_t transfer_ns(uint64_t bytes, double bytes_per_s, int64_t latency_ns);

}  // namespace kvsim::sim
