// Cluster: several serving instances (replicas) on one clock behind a router, optionally
// disaggregated into prefill-only and decode-only pools, with a tiered KV pool below each
// replica's HBM.
//
//   arrivals --router--> replica (colocated)              or --router--> prefill replica
//                                                                  | prefill done (first token)
//                                                          decode router --> decode replica
//                                                                  | blocks allocated there
//                                                          KV transfer over the link
//                                                                  | transfer ends
//                                                          prefill copy freed; decode runs
//
// One EventQueue is the clock of every replica (each an Engine made by create_replica(); its
// events carry its index as Event::target). The cluster handles arrivals and KV transfers
// itself. Each instant: every replica's time integrals advance, the instant's events are
// handled in queue order, then every replica that an event touched (and any a consequence
// touched in turn) decides its next step, in the order they were touched — so a one-replica
// colocated cluster makes exactly the decisions a lone Engine makes (tested).
//
// Disaggregation (xPyD): a prefill replica keeps a prefilled request's blocks until its KV
// has reached the decode replica. The decode replica admits the request from its waiting
// queue in turn, allocating blocks for the prompt's KV (minus its own prefix hit) before the
// transfer starts; a decode replica short of blocks makes transfers wait (and the prefill
// replicas' blocks stay held): decode-side memory pressure is simulated, not assumed.
// Transfers: each replica has one port onto the fabric, full duplex; a transfer holds the
// sender's send side and the receiver's receive side, first come first served:
//   ready = when the decode replica holds the blocks
//   start = max(ready, sender's send side free, receiver's receive side free)
//   end   = start + latency + bytes / bandwidth
//   bytes = blocks sent x KV bytes per block of the receiver (all of its devices)
// TTFT is the prefill's first token; the transfer shows in TPOT (and in the transfer times).
//
// Parallel runs (ClusterConfig::threads > 1; simulator/cluster/cluster_parallel.cc): a
// colocated cluster without lower tiers, behind a router that reads no replica state
// (round_robin) and fed by an open-loop workload, runs each replica on its own event queue,
// its replicas spread over the threads, and replays what they did in the serial run's order:
// every output is byte-identical to the serial run's. Any other cluster runs serially.
//
// Tiered pool: see simulator/cluster/kv_tiers.h (chunks, demotion on eviction or writes when a
// prefill ends, loads on lower-tier hits).
//
// The cluster reaches into its replicas only through the engine's seams
// (simulator/engine/kv_connector.h): each replica's ReplicaTiers is a KvConnector (lower-tier
// hits, write-through at a prefill's end) and its HBM's EvictionSink (demotion); a decode replica's
// Peer connector supplies a remote request's prompt KV, a prefill replica's Peer is its KvHandOff.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/base/cache_line_allocator.h"
#include "core/base/flat_id_map.h"
#include "core/cache/tier_pool.h"
#include "simulator/cluster/kv_tiers.h"
#include "simulator/cluster/replica_log.h"
#include "simulator/cluster/router.h"
#include "simulator/engine/engine.h"
#include "simulator/output/latency_samples.h"

namespace kvsim::sim {

struct ReplicaConfig {
  EngineConfig engine;              // engine.replica = its index; engine.scheduler.role its role
  std::string name;                 // "r0", "r1", ...
  std::string device;               // device preset name (reports)
  uint32_t num_devices = 1;         // tensor-parallel devices of the replica
  uint64_t kv_bytes_per_block = 0;  // one block on all of its devices together
};

// A lower tier of the KV pool (simulator/cluster/kv_tiers.h).
struct TierConfig {
  std::string name;     // "dram", "ssd", ...
  bool shared = false;  // one pool for the cluster instead of one per replica
  EvictionKind eviction = EvictionKind::kLru;  // the tier's own (lru, lfu or fifo)
  double capacity_bytes = 0;                   // per replica (or of the shared pool)
  double bandwidth_bytes_per_s = 0;            // each replica's path from the tier into its HBM
  double latency_s = 0;                        // per load
};

// The link KV transfers take between a prefill and a decode replica.
struct KvLinkConfig {
  std::string name;  // the link preset
  double bytes_per_s = 0;
  int64_t latency_ns = 0;
};

struct ClusterConfig {
  std::vector<ReplicaConfig> replicas;
  RouterKind router = RouterKind::kRoundRobin;          // arrivals (colocated or prefill)
  RouterKind decode_router = RouterKind::kLeastLoaded;  // prefilled requests (decode replicas)
  KvLinkConfig link;                                    // needed when some replica has a role
  std::vector<TierConfig> tiers;                        // top to bottom
  // The tiers' unit and write policy (simulator/cluster/tier_policy.h): tokens per chunk, a
  // multiple of every replica's block size (0: one block, block-granular tiers).
  uint32_t tier_chunk_tokens = 0;
  TierWritePolicy tier_write_policy = TierWritePolicy::kOnEvict;
  uint64_t progress_every_events = uint64_t{1} << 15;
  // Threads a run may use (parallel_threads() says how many it will); 1: serial.
  uint32_t threads = 1;
};

// A lower tier at work: its pool (shared or one replica's) and what came into it.
struct TierInstance {
  size_t tier = 0;                // index into ClusterConfig::tiers
  std::optional<uint32_t> owner;  // the replica; none for a shared pool
  std::unique_ptr<TierPool> pool;
  long double resident_block_ns = 0;  // integral of resident entries (blocks or chunks) over time
  uint32_t peak_resident = 0;         // entries
};

// Traffic of one (prefill, decode) pair.
struct KvLinkStats {
  uint64_t transfers = 0;
  uint64_t bytes = 0;
  int64_t busy_ns = 0;
};

struct ClusterStats {
  uint64_t events = 0;
  uint64_t arrivals = 0;
  uint64_t finished = 0;
  uint64_t dropped = 0;
  int64_t last_event_ns = 0;
  ExactSum in_system_ns = 0;  // integral of requests in the system (arrived, not done)
  uint64_t kv_transfers = 0;
  uint64_t kv_transfer_bytes = 0;
  // Per transfer (bounded memory: simulator/output/latency_samples.h):
  LatencySamples kv_transfer_s;    // end - start
  LatencySamples kv_queue_s;       // start - ready (waiting for the ports)
  LatencySamples kv_block_wait_s;  // ready - prefill end (decode blocks)
  // Per request that waited for lower-tier loads, every replica's: its wait.
  LatencySamples tier_load_wait_s;
  std::vector<KvLinkStats> links;  // [prefill * replicas + decode]
  // Prompt tokens of finished requests, and those their first admission hit in HBM and in
  // each lower tier (prefix_cache_hit_rate_by_tier).
  uint64_t prompt_tokens = 0;
  uint64_t hbm_hit_tokens = 0;
  uint64_t lower_hit_tokens[kMaxLowerTiers] = {0, 0, 0, 0};
};

// Arrivals a parallel run's replicas take in one go (cluster_parallel.cc).
struct ArrivalWindow;

// Aligned to a cache line: a parallel run's merge writes its members while the replicas' threads
// write the engines allocated next to it.
class alignas(kCacheLineBytes) Cluster final : private RouterView {
 public:
  // cost_models[i] is replica i's.
  static StatusOr<std::unique_ptr<Cluster>> create(
      const ClusterConfig& config, std::vector<std::unique_ptr<CostModel>> cost_models,
      std::unique_ptr<RequestSource> source);
  ~Cluster() override;

  // Added to every replica (requests, iterations, swaps and tier loads) and told of the KV
  // transfers between replicas; finish() is called once, with the replicas' summed state.
  void add_observer(SimObserver* observer);
  // Called at the start of every instant, before its events (time-series samplers).
  void add_instant_callback(std::function<void(int64_t now_ns)> callback);
  void set_progress_callback(std::function<void(const Progress&)> callback) {
    progress_ = std::move(callback);
  }

  // While run() runs, `stop` becoming true makes it return a cancelled Status within
  // progress_every_events events (as Engine::set_stop_flag). Null: never stops.
  void set_stop_flag(const std::atomic<bool>* stop) { stop_ = stop; }

  Status run();

  // The event loop's driver (simulator/engine/event_loop.h).
  void begin_instant(int64_t now_ns);
  void handle(const Event& event);
  void end_instant() { run_dirty_replicas(); }
  const Status& input_status() const { return feed_.status(); }
  uint64_t num_events() const { return stats_.events; }
  void report_progress();

  size_t num_replicas() const { return engines_.size(); }
  const Engine& replica(size_t r) const { return *engines_[r]; }
  const ReplicaConfig& replica_config(size_t r) const { return config_.replicas[r]; }
  // Replica r's state after its last decision at or before `row_ns`, a row time of the time
  // series (called as the rows are due, in time order: the serial run's state then), or kRunEnd
  // after the run. A parallel run keeps states only at the rows every row_interval_ns.
  static constexpr int64_t kRunEnd = std::numeric_limits<int64_t>::max();
  ReplicaState replica_state(size_t r, int64_t row_ns) const;
  void set_row_interval(int64_t interval_ns) { row_interval_ns_ = interval_ns; }
  // The threads the run uses: 1 when the cluster cannot run in parallel (see above).
  uint32_t parallel_threads() const { return threads_; }
  const ClusterConfig& config() const { return config_; }
  const std::vector<TierInstance>& tiers() const { return tiers_; }
  // Replica r's view of the lower tiers (null when there are none).
  const ReplicaTiers* replica_tiers(size_t r) const { return replica_tiers_[r].get(); }
  const ClusterStats& stats() const { return stats_; }
  WorkloadStats workload_stats() const { return feed_.source().stats(); }
  int64_t now_ns() const { return events_.now_ns(); }
  // The replicas' states summed (time: now).
  EngineSnapshot snapshot() const;

  // KVSIM_CHECKs every replica's cache and every tier, and the conservation of entries
  // across tiers: what each tier took in (stored + refreshed) equals what was put into it —
  // what the replicas demoted or wrote into it, or what the tier above evicted (on_evict) —
  // and, block-granular, a replica demotes exactly what its HBM evicts.
  void check_invariants() const;

 private:
  struct Transfer {  // a KV transfer in flight
    uint32_t from = 0, from_slot = 0, to = 0, to_slot = 0;
  };
  struct Action {  // something a replica asked for, done after its call returns
    enum Kind : uint8_t { kPrefilled, kReceiveReady, kRemoteDropped } kind;
    uint32_t replica, slot, value;
  };
  class Tally;
  class Peer;

  Cluster(const ClusterConfig& config, std::unique_ptr<RequestSource> source);
  Status build_tiers();
  Status check_tier_layout() const;
  uint64_t tier_inflow(const TierInstance& tier) const;

  // RouterView
  uint64_t outstanding_tokens(uint32_t replica) const override;
  uint32_t cached_prefix_blocks(uint32_t replica, const RequestSpec& request) const override;

  void advance_clock(int64_t now_ns);
  // What a serial run's replicas call, in order: the tally, then the observers added.
  std::vector<SimObserver*> replica_observers() const;
  // cluster_parallel.cc
  static uint32_t threads_for(const ClusterConfig& config, bool limits_in_flight);
  Status run_parallel();
  bool fill_window(EventQueue* arrivals, ArrivalWindow* window);
  void merge(const ArrivalWindow& window);
  void replay_step(uint32_t replica, StepKind kind);
  void end_merged_instant();
  void handle_arrival();
  void hand_off(uint32_t prefill, uint32_t slot);
  void start_kv_transfer(uint32_t decode, uint32_t slot, uint32_t num_blocks);
  void end_kv_transfer(uint64_t index);
  void drain_actions();
  void mark_dirty(uint32_t replica);
  void run_dirty_replicas();
  // The request's prompt block hashes at `block_size` (memoized for the request in hand).
  const std::vector<BlockHash>& hashes_at(const RequestSpec& request, uint32_t block_size) const;
  void keep_spec(const RequestSpec& spec);
  void forget_spec(uint64_t id);

  ClusterConfig config_;
  ArrivalFeed feed_;
  EventQueue events_;
  std::vector<std::unique_ptr<Engine>> engines_;
  std::vector<std::unique_ptr<Peer>> peers_;  // one per disaggregated replica
  std::vector<TierInstance> tiers_;
  std::vector<std::unique_ptr<ReplicaTiers>> replica_tiers_;  // null entries: no tiers
  std::unique_ptr<Router> router_;
  std::unique_ptr<Router> decode_router_;
  std::vector<uint32_t> entry_pool_;   // replicas arrivals go to
  std::vector<uint32_t> decode_pool_;  // decode replicas (disaggregated)
  std::unique_ptr<Tally> tally_;
  std::vector<SimObserver*> observers_;
  std::vector<std::function<void(int64_t)>> instant_callbacks_;
  int64_t row_interval_ns_ = 0;  // the time series' (set_row_interval)
  std::function<void(const Progress&)> progress_;
  const std::atomic<bool>* stop_ = nullptr;

  std::vector<Action> actions_;
  std::vector<uint8_t, CacheLineAllocator<uint8_t>> dirty_;  // their own lines (parallel runs)
  std::vector<uint32_t, CacheLineAllocator<uint32_t>> dirty_list_;
  std::vector<Transfer> transfers_;  // slab, indexed by the event payload
  std::vector<uint32_t> free_transfers_;
  std::vector<int64_t> send_free_ns_;
  std::vector<int64_t> recv_free_ns_;
  FlatIdMap spec_index_;  // disaggregated: request id -> specs_ slot, until its hand-off
  std::vector<RequestSpec> specs_;
  std::vector<uint32_t> free_specs_;
  struct HashMemo {  // a request's prompt block hashes at one block size (0: unused)
    uint32_t block_size = 0;
    std::vector<BlockHash> hashes;
  };
  mutable std::vector<HashMemo> hash_memo_;
  mutable uint64_t hash_memo_id_ = ~uint64_t{0};
  std::vector<BlockHash> scratch_hashes_;
  uint64_t in_system_ = 0;
  int64_t clock_ns_ = 0;
  ClusterStats stats_;

  uint32_t threads_ = 1;
  std::vector<std::unique_ptr<ReplicaRun>> local_;       // parallel: one per replica; empty: serial
  std::vector<std::unique_ptr<ReplicaReplay>> replays_;  // parallel: the merge's, per replica
  std::vector<SimObserver*> replay_to_;                  // parallel: the tally, then observers_
  bool merge_in_instant_ = false;
};

}  // namespace kvsim::sim
