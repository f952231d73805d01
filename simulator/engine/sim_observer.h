// SimObserver: what the engine reports while it runs, for the metrics and the writers
// (requests.csv, timeseries.csv, the Chrome trace) and for front ends (the GUI's plots).
//
// Callbacks come in simulated-time order. Observers must not change the simulation; an
// observer that fails (a write error) keeps its Status and reports it from finish().
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/base/status.h"
#include "simulator/engine/cost_model.h"
#include "simulator/engine/sim_request.h"

namespace kvsim::sim {

// The engine's state at an instant.
struct EngineSnapshot {
  int64_t time_ns = 0;
  uint32_t kv_blocks_used = 0;         // ref count > 0
  uint32_t kv_blocks_cached_free = 0;  // free, still holding a reusable prefix
  uint32_t kv_blocks_free = 0;         // free, nothing reusable
  uint32_t running = 0;                // in the running batch
  uint32_t waiting = 0;                // queued for admission
  uint32_t swapped = 0;                // swapped out or moving over the host link
  uint64_t in_system = 0;              // arrived and neither finished nor dropped
};

struct IterationRecord {
  uint64_t index = 0;      // 0, 1, 2, ... (per engine)
  uint32_t replica = 0;    // the engine's index in a cluster
  int64_t decided_ns = 0;  // when the scheduler formed the batch
  int64_t start_ns = 0;    // when it ran (later than decided when swap-outs had to finish)
  int64_t end_ns = 0;
  BatchShape shape;
  uint64_t output_tokens = 0;  // output tokens sampled at its end
};

enum class DropReason : uint8_t {
  kTooLong,    // prompt + output longer than the model's context
  kTooLarge,   // needs more KV blocks than the pool has
  kBudget,     // without chunked prefill: more tokens than max_num_batched_tokens
  kNeverFits,  // found at run time: cannot be scheduled even with the device to itself
};

struct RequestRecord {
  uint64_t id = 0;
  int64_t arrival_ns = 0;
  // Set for every finished request; a dropped one has what it reached.
  std::optional<int64_t> first_scheduled_ns;
  std::optional<int64_t> first_token_ns;
  std::optional<int64_t> finish_ns;
  uint32_t prompt_tokens = 0;
  uint32_t output_tokens = 0;
  uint32_t cached_prompt_tokens = 0;
  uint32_t preemptions = 0;
  // A client's time beyond the engine's (EngineConfig::frontend_ns): its TTFT and E2E are the
  // engine's plus this (simulator/output/request_latency.h).
  int64_t frontend_ns = 0;
  // In a cluster (simulator/cluster/cluster.h); a lone engine leaves the defaults.
  int32_t replica = -1;                  // the instance it finished (or was dropped) on
  int32_t prefill_replica = -1;          // the instance its prefill ran on
  std::optional<int64_t> prefilled_ns;   // disaggregated: prefill end; the KV arrived at
  std::optional<int64_t> kv_arrived_ns;  // kv_arrived_ns
  uint32_t lower_hit_tokens[kMaxLowerTiers] = {0, 0, 0, 0};  // of cached_prompt_tokens
};

enum class TransferKind : uint8_t {
  kSwap,       // swap preemption over the host link (to_host says the direction)
  kTierLoad,   // prefix-hit blocks loaded from a lower KV tier into HBM (tier says which)
  kKv,         // a request's KV sent from a prefill instance to a decode instance
  kTierWrite,  // a request's new KV copied down into a lower KV tier (write-through)
};

struct TransferRecord {
  uint64_t request_id = 0;
  bool to_host = true;  // swap out (device -> host) or in
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t bytes = 0;
  TransferKind kind = TransferKind::kSwap;
  int64_t ready_ns = -1;      // when it could have started (start - ready: queueing on the link)
  int32_t tier = -1;          // kTierLoad, kTierWrite: lower tier index (0 = the first below HBM)
  int32_t from_replica = -1;  // kKv: sender and receiver; kTierLoad, kTierWrite: the replica
  int32_t to_replica = -1;

  // A transfer of `kind` that could start at ready_ns and ran [start_ns, end_ns), from one
  // replica to another (the same one for swaps and tier loads).
  static TransferRecord of(TransferKind kind, uint64_t request_id, int64_t ready_ns,
                           int64_t start_ns, int64_t end_ns, uint64_t bytes, uint32_t from,
                           uint32_t to) {
    TransferRecord r;
    r.request_id = request_id;
    r.to_host = false;
    r.kind = kind;
    r.ready_ns = ready_ns;
    r.start_ns = start_ns;
    r.end_ns = end_ns;
    r.bytes = bytes;
    r.from_replica = static_cast<int32_t>(from);
    r.to_replica = static_cast<int32_t>(to);
    return r;
  }
};

class SimObserver {
 public:
  virtual ~SimObserver() = default;
  // After an iteration ended and its results were applied; `after` is the state then.
  virtual void on_iteration(const IterationRecord& /*iteration*/, const EngineSnapshot& /*after*/) {
  }
  virtual void on_request_finished(const RequestRecord& /*request*/) {}
  virtual void on_request_dropped(const RequestRecord& /*request*/, DropReason /*reason*/) {}
  virtual void on_transfer(const TransferRecord& /*transfer*/) {}
  // The run ended at `last` (the final state); returns the first error the observer hit.
  virtual Status finish(const EngineSnapshot& /*last*/) { return Status::ok(); }
};

// Ends a run for every observer (each is told, even after another failed); returns the first
// error.
inline Status finish_observers(const std::vector<SimObserver*>& observers,
                               const EngineSnapshot& last) {
  Status status;
  for (SimObserver* observer : observers) {
    const Status finished = observer->finish(last);
    if (status.is_ok()) status = finished;
  }
  return status;
}

}  // namespace kvsim::sim
