// Engine: the discrete-event loop of one simulated serving instance. Owns the clock.
//
// Events (simulator/event_queue.h): a request arrives; the iteration in flight ends; a swap
// transfer over the host link ends. After all events of an instant are handled, an idle
// engine asks the scheduler for the next batch and, when there is one, starts it:
//   start = max(now, end of the swap-outs this step started)   (the batch reuses their blocks)
//   end   = start + CostModel::iteration_ns(batch shape)
// Swap transfers queue on the host link, one queue per direction (PCIe is full duplex):
// transfer time = bytes / host link bandwidth (DeviceSpec::host_link_gbps, one direction).
// A swap-in overlaps with iterations; the request rejoins the batch when it ends.
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
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/kv_cache_manager.h"
#include "simulator/cost_model.h"
#include "simulator/event_queue.h"
#include "simulator/request.h"
#include "simulator/scheduler.h"
#include "simulator/sim_observer.h"
#include "simulator/sim_request.h"

namespace kvsim::sim {

struct EngineConfig {
  KvCacheConfig cache;  // pool (block count from core/capacity.h), eviction, ...
  SchedulerLimits scheduler;
  uint64_t max_model_len = 0;        // the model's context in tokens; 0 = unlimited
  double host_link_bytes_per_s = 0;  // one direction; needed for swap preemption
  uint64_t progress_every_events = uint64_t{1} << 15;  // progress callback period
};

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
  // over the requests admitted (all of them once the run ends, drops aside).
  uint64_t recomputed_tokens = 0;
  uint64_t output_tokens = 0;        // output tokens sampled (all requests)
  uint32_t kv_blocks_peak = 0;       // most blocks in use at once
  int64_t busy_ns = 0;               // sum of iteration durations
  int64_t last_event_ns = 0;         // the simulated time the run ended
  long double kv_used_block_ns = 0;  // integral of used blocks over time
  long double in_system_ns = 0;      // integral of requests in the system over time

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

class Engine {
 public:
  static StatusOr<std::unique_ptr<Engine>> create(const EngineConfig& config,
                                                  std::unique_ptr<CostModel> cost_model,
                                                  std::unique_ptr<RequestSource> source);

  // Observers are called in the order added; they must outlive run().
  void add_observer(SimObserver* observer) { observers_.push_back(observer); }
  void set_progress_callback(std::function<void(const Progress&)> callback) {
    progress_ = std::move(callback);
  }
  // While run() runs, `stop` becoming true makes it return a cancelled Status within
  // progress_every_events events (checked where progress is reported). Null: never stops.
  void set_stop_flag(const std::atomic<bool>* stop) { stop_ = stop; }

  // Runs the workload to the end (every request finished or dropped). A malformed trace row
  // or an observer's write error stops it with that Status.
  Status run();

  const EngineStats& stats() const { return stats_; }
  EngineSnapshot snapshot() const;
  const KvCacheManager& cache() const { return cache_; }
  WorkloadStats workload_stats() const { return source_->stats(); }
  int64_t now_ns() const { return events_.now_ns(); }

 private:
  Engine(const EngineConfig& config, KvCacheManager cache, std::unique_ptr<CostModel> cost_model,
         std::unique_ptr<RequestSource> source);

  Status pull_next_arrival();
  void handle(const Event& event);
  void handle_arrival();
  void handle_iteration_end();
  void handle_swap_end(uint32_t slot);
  void try_start_iteration();
  int64_t start_transfers();
  void start_batch(int64_t start_ns);
  void advance_clock(int64_t time_ns);
  uint64_t peak_blocks_needed(const RequestSpec& spec) const;
  bool drop_at_arrival(const RequestSpec& spec);
  void record_drop(uint32_t slot, DropReason reason);
  RequestRecord record_of(const SimRequest& request) const;
  void report_progress();

  EngineConfig config_;
  KvCacheManager cache_;
  std::unique_ptr<CostModel> cost_model_;
  std::unique_ptr<RequestSource> source_;
  RequestTable requests_;
  Scheduler scheduler_;
  EventQueue events_;
  std::vector<SimObserver*> observers_;
  std::function<void(const Progress&)> progress_;
  const std::atomic<bool>* stop_ = nullptr;

  RequestSpec next_;  // the request whose arrival event is queued
  bool has_next_ = false;
  Status source_status_;
  std::vector<BlockHash> hashes_;
  StepPlan plan_;  // the iteration in flight
  StepResult result_;
  IterationRecord iteration_;
  bool busy_ = false;
  int64_t to_host_free_ns_ = 0;    // when the device->host link is next free
  int64_t to_device_free_ns_ = 0;  // when the host->device link is next free
  uint64_t in_system_ = 0;
  int64_t clock_ns_ = 0;  // last time the integrals were advanced to
  uint64_t next_progress_events_ = 0;
  EngineStats stats_;
};

}  // namespace kvsim::sim
