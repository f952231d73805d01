// ReplicaLog: what one replica of a parallel cluster run did, in its own order, kept until the
// cluster replays it in the order a serial run does it (simulator/cluster/cluster_parallel.cc).
//
// A replica runs alone on its own event queue and thread; every call it makes into the engine
// is a step — an arrival admitted, one of its events handled, the decision at the end of an
// instant — and the log keeps, per step, the observer calls the engine made (their records
// copied) and the times of the events it queued; and the replica's states the time series will
// read (captured at the instants after its rows: see ReplicaRun).
// The cluster's merge pops the steps from the front, in the log's order, as its replay of the
// serial event order reaches them; clear() drops what was replayed.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/base/cache_line_allocator.h"
#include "simulator/cluster/replica_team.h"
#include "simulator/engine/event_queue.h"
#include "simulator/engine/sim_observer.h"

namespace kvsim::sim {

class Engine;

// A replica's state as the cluster's time series reads it (simulator/cluster/cluster_writers.h).
struct ReplicaState {
  EngineSnapshot snapshot;
  uint64_t in_transit = 0;          // Scheduler::num_in_transit
  uint64_t outstanding_tokens = 0;  // Engine::outstanding_tokens
  uint64_t tokens_done = 0;         // EngineStats::tokens_done
};
ReplicaState replica_state_of(const Engine& engine);

enum class StepKind : uint8_t {
  kAdmit,   // an arrival routed here (Engine::admit)
  kHandle,  // one of its events (Engine::handle)
  kDecide,  // the end of an instant it was touched in (Engine::end_instant)
};

struct ReplicaStep {
  StepKind kind = StepKind::kHandle;
  int64_t time_ns = 0;
  uint32_t first_call = 0, end_call = 0;  // its observer calls: [first, end) of the log's
  uint32_t first_push = 0, end_push = 0;  // times of the events it queued: [first, end)
};

// Aligned: the logs of one replica's windows are written by its thread and read by the replay.
class alignas(kCacheLineBytes) ReplicaLog final : public SimObserver {
 public:
  explicit ReplicaLog(const Engine* engine) : engine_(engine) {}

  // Brackets one step; the engine's pushes are recorded by the replica's queue into pushes().
  void begin_step(StepKind kind, int64_t time_ns);
  void end_step();

  size_t num_steps() const { return steps_.size(); }
  const ReplicaStep& step(size_t i) const { return steps_[i]; }
  // Records the replica's state now, as its state after every decision before `before_ns`.
  void capture_state(int64_t before_ns);
  size_t num_states() const { return states_.size(); }
  int64_t state_before(size_t i) const { return state_times_[i]; }
  const ReplicaState& state(size_t i) const { return states_[i]; }
  std::vector<int64_t>* pushes() { return &pushes_; }
  const std::vector<int64_t>& pushed_times() const { return pushes_; }
  // The step's observer calls, made on each of `observers` in turn.
  void replay(const ReplicaStep& step, const std::vector<SimObserver*>& observers) const;
  void clear();
  // Takes `from`'s steps and records (this log's are dropped), leaving `from` empty: the merge
  // replays a window's log while the replica writes the next one.
  void take(ReplicaLog* from);

  void on_iteration(const IterationRecord& iteration, const EngineSnapshot& after) override;
  void on_request_finished(const RequestRecord& request) override;
  void on_request_dropped(const RequestRecord& request, DropReason reason) override;
  void on_transfer(const TransferRecord& transfer) override;

 private:
  enum class CallKind : uint8_t { kIteration, kFinished, kDropped, kTransfer };
  struct Call {
    CallKind kind;
    DropReason reason;
    uint32_t index;  // into the vector of its kind
  };

  const Engine* engine_;
  std::vector<ReplicaStep> steps_;
  std::vector<ReplicaState> states_;  // captured, each valid before its time:
  std::vector<int64_t> state_times_;  // in increasing order
  std::vector<Call> calls_;
  std::vector<int64_t> pushes_;
  std::vector<IterationRecord> iterations_;
  std::vector<EngineSnapshot> snapshots_;  // after each iteration
  std::vector<RequestRecord> requests_;
  std::vector<TransferRecord> transfers_;
};

// A replica of a parallel cluster run as its thread sees it: its own event queue, the log it
// writes and where its run stands. Aligned to a cache line, and touched by no other thread
// during a round (the merge keeps its own side apart: no line bounces between the cores).
struct alignas(kCacheLineBytes) ReplicaRun {
  EventQueue queue;
  std::unique_ptr<ReplicaLog> log;  // the window the replica runs (its engine's observer)
  // The logs of the windows it ran that the replay has still to replay (a ring: window k's
  // at k mod kWindowsAhead; the replay clears one before its place is run again).
  std::array<std::unique_ptr<ReplicaLog>, kWindowsAhead> windows;
  Engine* engine = nullptr;
  // The cluster's next arrival (every replica meets every arrival: cluster_parallel.cc), kept
  // out of the queue's heap: it goes before the heap's top when (time, seq) says so.
  struct NextArrival {
    bool some = false;
    uint64_t index = 0;  // the arrival's global index
    int64_t time_ns = 0;
    uint64_t seq = 0;  // the sequence number its push into the queue would have had
  } arrival;
  // The time series' rows (0: none) and the next row time whose state is not yet captured. The
  // state a row at time b shows is the replica's after its last decision at or before b; the
  // replica captures it when an instant after b begins (nothing changed since that decision),
  // as valid before that instant, and at the end of each window.
  int64_t row_interval_ns = 0;
  int64_t next_row_ns = 0;
  int64_t instant_ns = 0;  // the instant the replica is in, while in_instant
  bool in_instant = false;
  bool touched = false;  // an event or an arrival of the instant was the replica's
};

// The merge's side of a replica: the window it replays, and its place in it.
struct alignas(kCacheLineBytes) ReplicaReplay {
  ReplicaLog* log = nullptr;  // the window being replayed
  size_t next_step = 0;
  size_t next_state = 0;  // the first of the log's states a later row may read
  ReplicaState kept;      // the state at the end of the last window cleared
  // The state a time-series row at `row_ns` shows (rows come in time order).
  const ReplicaState& state_at(int64_t row_ns);
  // Keeps the state at the window's end out of the log before the log is cleared.
  void keep_state();
};

}  // namespace kvsim::sim
