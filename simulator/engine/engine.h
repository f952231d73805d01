// Engine: the discrete-event loop of one simulated serving instance. Owns the clock.
//
// Events (simulator/engine/event_queue.h): a request arrives; the iteration in flight ends; a swap
// transfer over the host link ends. After all events of an instant are handled, an idle
// engine asks the scheduler for the next batch and, when there is one, starts it:
//   start = max(now, end of the swap-outs this step started)   (the batch reuses their blocks)
//   end   = start + CostModel::iteration_ns(batch shape)
// Swap transfers queue on the host link, one queue per direction (PCIe is full duplex):
// transfer time = bytes / host link bandwidth (DeviceSpec::host_link_gbps, one direction).
// A swap-in overlaps with iterations; the request rejoins the batch when it ends.
// With async scheduling (EngineConfig::async_scheduling) a request that arrives while an
// iteration runs is held until the next iteration has been decided, so it is first scheduled
// one iteration later; an engine with nothing else to run takes it at once.
//
// Requests that can never be served are dropped and counted, never looped on: at arrival
// when prompt + output exceed the model's context, when (without chunked prefill) the prompt
// exceeds the token budget, or when the blocks the request needs at its peak exceed the pool
// (full retention: ceil((P + O - 1) / block); with a sink S + window W policy:
// ceil(S / block) + ceil((W + largest chunk) / block) + 2, whichever is smaller); and at run
// time when nothing can run although requests wait.
//
// The engine is an object with no global state: any number can run side by side (sweeps).
// Memory follows the requests in flight; finished requests leave only through observers.
//
// Alone (create()), an engine owns its event queue and its workload and run() drives it
// (simulator/engine/event_loop.h). As a replica of a cluster (create_replica(),
// simulator/cluster/cluster.h) it shares the cluster's queue — one clock for every replica; its
// events carry its replica index as Event::target — and the cluster drives it instant by
// instant through the same loop: begin_instant(now), handle() its events, end_instant(). Requests
// come from the cluster's router (admit()), or, on a decode-only instance, from a prefill
// instance (admit_remote()). KV the engine did not compute reaches it through connectors
// (simulator/engine/kv_connector.h: lower tiers, a prefill instance's KV), and a prefill-only
// instance hands requests on through its KvHandOff; the engine itself knows neither tiers nor
// peers. The engine holds pointers into itself (its scheduler into its cache and requests), so
// it is neither copyable nor movable: it lives behind the unique_ptr create() returns.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/cache/kv_cache_coordinator.h"
#include "simulator/engine/arrival_feed.h"
#include "simulator/engine/cost_model.h"
#include "simulator/engine/event_loop.h"
#include "simulator/engine/event_queue.h"
#include "simulator/engine/kv_connector.h"
#include "simulator/engine/request.h"
#include "simulator/engine/scheduler.h"
#include "simulator/engine/sim_observer.h"
#include "simulator/engine/sim_request.h"

namespace kvsim::sim {

struct EngineConfig {
  KvCacheConfig cache;  // pool (block count from core/engine/capacity.h), eviction, ...
  // A hybrid model's KV cache groups (core/cache/kv_cache_coordinator.h); empty for a
  // uniform model.
  std::vector<CacheGroupSpec> cache_groups;
  SchedulerLimits scheduler;
  uint64_t max_model_len = 0;        // the model's context in tokens; 0 = unlimited
  double host_link_bytes_per_s = 0;  // one direction; needed for swap preemption
  uint64_t progress_every_events = uint64_t{1} << 15;  // progress callback period
  uint32_t replica = 0;  // index in a cluster (Event::target, RequestRecord::replica)
  // vLLM's async scheduling (>= 0.14, simulator/cost/execution_profile.h): the batch after the
  // one in flight is scheduled when that one starts, so a request arriving while an iteration
  // runs first joins the batch after the next (vllm/v1/engine/core.py step_with_batch_queue:
  // the queue of two is refilled before the engine blocks on the running batch). Without it a
  // request joins the next batch.
  bool async_scheduling = false;
  // A client's time beyond the engine's per request (cost_model.frontend_s): stamped on every
  // RequestRecord; a closed-loop client sends its next request that much after a finish.
  int64_t frontend_ns = 0;
};

// An exact sum of integer products (time integrals): 128 bits hold 2^64 ns x 2^64 units.
__extension__ typedef unsigned __int128 ExactSum;

// Counters over the whole run.
struct EngineStats {
  uint64_t events = 0;
  uint64_t iterations = 0;
  uint64_t arrivals = 0;
  uint64_t completed = 0;
  uint64_t dropped[4] = {0, 0, 0, 0};  // by DropReason
  uint64_t preemptions_recompute = 0;
  uint64_t preemptions_swap = 0;
  uint64_t swap_out_bytes = 0;
  uint64_t swap_in_bytes = 0;
  uint64_t prefill_tokens = 0;  // prompt tokens computed (recomputation included)
  uint64_t decode_tokens = 0;
  // Tokens computed again after recompute preemptions lost them. Every run satisfies
  //   prefill_tokens + decode_tokens
  //     = sum(P + O - 1) - sum(prompt tokens cached at first admission) + recomputed_tokens
  //       + (draft_tokens - accepted_draft_tokens)
  // over the requests admitted (all of them once the run ends, drops aside). A speculative
  // step's 1 + d tokens count in decode_tokens (though costed as a chunk).
  uint64_t recomputed_tokens = 0;
  uint64_t output_tokens = 0;  // output tokens sampled (all requests)
  uint64_t draft_tokens = 0;   // speculative drafts verified (counted in decode_tokens)
  uint64_t accepted_draft_tokens = 0;
  uint64_t verify_steps = 0;    // a request's step that verified drafts
  uint64_t tokens_done = 0;     // tokens computed by iterations that have ended
  uint64_t handed_off = 0;      // prefill role: requests sent on to a decode instance
  uint64_t received = 0;        // decode role: remote requests taken over
  uint32_t kv_blocks_peak = 0;  // most blocks in use at once
  int64_t busy_ns = 0;          // sum of iteration durations
  int64_t last_event_ns = 0;    // the simulated time the run ended
  // Integrals over time, exact: however the run's time is cut into instants (a replica of a
  // parallel cluster run sees only its own), they are the same.
  ExactSum kv_used_block_ns = 0;  // of used blocks
  ExactSum in_system_ns = 0;      // of requests in the system

  uint64_t dropped_total() const { return dropped[0] + dropped[1] + dropped[2] + dropped[3]; }
};

struct Progress {
  int64_t sim_time_ns = 0;
  uint64_t arrivals = 0;
  uint64_t completed = 0;
  uint64_t dropped = 0;
  uint64_t events = 0;
  double fraction = 0;  // share of the workload done, [0, 1]
};

// Share of `source`'s workload done when `done` requests have finished or been dropped of
// `arrivals` arrived, in [0, 1]: of the known count, else of the input consumed.
double workload_fraction(const RequestSource& source, uint64_t done, uint64_t arrivals);

class Engine final : private KvTransfers {
 public:
  static StatusOr<std::unique_ptr<Engine>> create(const EngineConfig& config,
                                                  std::unique_ptr<CostModel> cost_model,
                                                  std::unique_ptr<RequestSource> source);
  // A replica of a cluster: its events go to the shared `events`, requests come through
  // admit() / admit_remote().
  static StatusOr<std::unique_ptr<Engine>> create_replica(const EngineConfig& config,
                                                          std::unique_ptr<CostModel> cost_model,
                                                          EventQueue* events);
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  ~Engine() override = default;

  // Observers are called in the order added; they must outlive run().
  void add_observer(SimObserver* observer) { observers_.push_back(observer); }
  void set_progress_callback(std::function<void(const Progress&)> callback) {
    progress_ = std::move(callback);
  }
  // While run() runs, `stop` becoming true makes it return a cancelled Status within
  // progress_every_events events (checked where progress is reported). Null: never stops.
  void set_stop_flag(const std::atomic<bool>* stop) { stop_ = stop; }
  // Speculative decoding with a draft network (config.scheduler.speculative): each iteration
  // also runs the drafter's passes (speculation.h draft_ns: one over the batch, k - 1 over
  // StepPlan::draft_shape), timed by `draft`. Without one, drafting costs nothing (ngram's CPU
  // lookup).
  void set_draft_cost_model(std::unique_ptr<CostModel> draft) {
    draft_cost_model_ = std::move(draft);
  }

  // Runs the workload to the end (every request finished or dropped). A malformed trace row
  // or an observer's write error stops it with that Status.
  Status run();

  const EngineStats& stats() const { return stats_; }
  EngineSnapshot snapshot() const;
  const KvCacheCoordinator& cache() const { return cache_; }
  const Scheduler& scheduler() const { return scheduler_; }
  const EngineConfig& config() const { return config_; }
  WorkloadStats workload_stats() const {
    return feed_ != nullptr ? feed_->source().stats() : WorkloadStats{};
  }
  int64_t now_ns() const override { return events_->now_ns(); }

  // ---- the event loop's driver (simulator/engine/event_loop.h; a cluster drives replicas) --
  // Advances the time integrals to `now_ns`, before the instant's events are handled.
  void begin_instant(int64_t now_ns) { advance_clock(now_ns); }
  // One of this engine's events (Event::target == its replica index).
  void handle(const Event& event);
  // After the instant's events: an idle engine decides and starts its next step.
  void end_instant() {
    if (!busy_) try_start_iteration();
  }
  const Status& input_status() const;
  uint64_t num_events() const { return stats_.events; }
  void report_progress();

  // ---- in a cluster (simulator/cluster/cluster.h) -----------------------------------------
  // KV from outside, asked in the order added (simulator/engine/kv_connector.h); must outlive
  // the engine.
  void add_connector(KvConnector* connector) { scheduler_.add_connector(connector); }
  // Prefill role: where requests go after their first token. Must outlive the engine.
  void set_hand_off(KvHandOff* hand_off) { hand_off_ = hand_off; }
  // Cached blocks HBM evicts go to `sink` (a lower tier they demote to); null drops them.
  void set_eviction_sink(EvictionSink* sink) { cache_.set_eviction_sink(sink); }
  // A request routed here; false when it is dropped at arrival (observers told). `hashes`:
  // its prompt block hashes at this engine's block size when the caller has them.
  bool admit(const RequestSpec& spec, const std::vector<BlockHash>* hashes = nullptr);
  // Decode role: takes over `sent`, prefilled on `from_replica` in its slot `from_slot`, with
  // its block hashes at this engine's block size; its KV is to come. False when dropped here.
  bool admit_remote(const SimRequest& sent, uint32_t from_replica, uint32_t from_slot,
                    std::span<const BlockHash> hashes);
  // Prefill role: the KV of `slot` reached its decode instance; the request leaves.
  void release_sent(uint32_t slot);
  // Decode role: the KV of remote request `slot` arrived; it joins the batch.
  void receive_done(uint32_t slot);
  const SimRequest& request(uint32_t slot) const { return requests_.at(slot); }
  // The scheduler's, and the held requests' (async scheduling) whole remaining tokens.
  uint64_t outstanding_tokens() const;
  uint32_t replica() const { return config_.replica; }
  // The run ended at `now_ns`: checks that nothing is left and records the end.
  void mark_end(int64_t now_ns);

 private:
  Engine(const EngineConfig& config, KvCacheCoordinator cache,
         std::unique_ptr<CostModel> cost_model, std::unique_ptr<RequestSource> source,
         EventQueue* events);

  // KvTransfers: a connector's transfer the request waits for, or one nothing waits for.
  void wait_for(uint32_t slot, const TransferRecord& transfer) override;
  void record(const TransferRecord& transfer) override;
  // The connectors' on_prefill_done for every request the iteration in flight ends the
  // prefill of (before the scheduler applies it).
  void notify_prefill_ends();

  void handle_arrival();
  void handle_iteration_end();
  void handle_swap_end(uint32_t slot);
  void handle_load_end(uint32_t slot);
  void try_start_iteration();
  void release_held();
  int64_t start_transfers();
  void start_batch(int64_t start_ns);
  void advance_clock(int64_t time_ns);
  uint64_t peak_blocks_needed(uint32_t prompt_tokens, uint32_t output_tokens) const;
  std::optional<DropReason> arrival_drop_reason(uint32_t prompt_tokens,
                                                uint32_t output_tokens) const;
  void drop_before_admission(RequestRecord record, DropReason reason);
  void record_drop(uint32_t slot, DropReason reason);
  RequestRecord record_of(const SimRequest& request) const;

  EngineConfig config_;
  KvCacheCoordinator cache_;
  std::unique_ptr<CostModel> cost_model_;
  std::unique_ptr<CostModel> draft_cost_model_;  // null: drafting takes no device time
  std::unique_ptr<ArrivalFeed> feed_;            // alone; null in a cluster
  RequestTable requests_;
  Scheduler scheduler_;
  EventQueue own_events_;  // alone; a replica uses its cluster's
  EventQueue* events_;
  KvHandOff* hand_off_ = nullptr;
  std::vector<SimObserver*> observers_;
  std::function<void(const Progress&)> progress_;
  const std::atomic<bool>* stop_ = nullptr;

  std::vector<BlockHash> hashes_;
  std::vector<uint32_t> held_;  // async scheduling: arrived during the iteration in flight
  StepPlan plan_;               // the iteration in flight
  StepResult result_;
  IterationRecord iteration_;
  bool busy_ = false;
  int64_t to_host_free_ns_ = 0;    // when the device->host link is next free
  int64_t to_device_free_ns_ = 0;  // when the host->device link is next free
  uint64_t in_system_ = 0;
  int64_t clock_ns_ = 0;  // last time the integrals were advanced to
  EngineStats stats_;
};

}  // namespace kvsim::sim
