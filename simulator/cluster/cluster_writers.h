// The files of a cluster run, beside summary.json and requests.csv (with its cluster columns):
//
//   replicas.csv   every `interval` of simulated time, one row per replica:
//                  time_s,replica,role,kv_blocks_used,kv_blocks_cached_free,kv_blocks_free,
//                  running,waiting,swapped,in_transit,outstanding_tokens,tokens_per_s
//                  (in_transit: loading from a lower tier, sending or receiving KV, swapping;
//                  tokens_per_s: tokens computed by its iterations ending in the interval)
//   tiers.csv      every `interval`, one row per lower-tier pool:
//                  time_s,tier,pool,slots,resident_blocks,usage,hit_chunks,written_bytes,
//                  loaded_bytes (pool: the replica or shared; slots and resident in blocks,
//                  whole chunks of them; since the start: chunk hits, bytes written down
//                  into the pool, bytes its replicas loaded up from it)
//   transfers.csv  every transfer as it starts: kind,request_id,from,to,tier,bytes,ready_s,
//                  start_s,end_s (kind: kv, tier_load, tier_write, swap_out, swap_in; from/to:
//                  replica indices; start - ready is the time it queued for its link or path)
// Row k of the sampled files stands for time k x interval: the state after every event at or
// before it. Streamed to disk; byte-identical for the same scenario and seed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "simulator/cluster/cluster.h"
#include "simulator/engine/sim_observer.h"
#include "simulator/io/output_file.h"
#include "simulator/output/interval_sampler.h"

namespace kvsim::sim {

class ClusterTimeseriesWriter final : public SimObserver {
 public:
  // Writes DIR/replicas.csv and DIR/tiers.csv (tiers.csv only when the cluster has tiers).
  static StatusOr<std::unique_ptr<ClusterTimeseriesWriter>> create(const std::string& dir,
                                                                   int64_t interval_ns,
                                                                   const Cluster* cluster);
  // The cluster is about to handle the events at now_ns: rows for the times before it.
  void on_instant(int64_t now_ns) {
    sampler_.advance_to(now_ns, /*inclusive=*/false, [this](int64_t t) { emit_row(t); });
  }
  Status finish(const EngineSnapshot& last) override;

 private:
  ClusterTimeseriesWriter(std::unique_ptr<OutputFile> replicas, std::unique_ptr<OutputFile> tiers,
                          int64_t interval_ns, const Cluster* cluster);
  void emit_row(int64_t time_ns);

  std::unique_ptr<OutputFile> replicas_;
  std::unique_ptr<OutputFile> tiers_;  // null without tiers
  const Cluster* cluster_;
  IntervalSampler sampler_;
  std::vector<uint64_t> last_tokens_;  // each replica's tokens_done at the previous row
};

class TransfersCsvWriter final : public SimObserver {
 public:
  static StatusOr<std::unique_ptr<TransfersCsvWriter>> create(const std::string& path);
  void on_transfer(const TransferRecord& transfer) override;
  Status finish(const EngineSnapshot& last) override;

 private:
  explicit TransfersCsvWriter(std::unique_ptr<OutputFile> file) : file_(std::move(file)) {}
  std::unique_ptr<OutputFile> file_;
};

}  // namespace kvsim::sim
