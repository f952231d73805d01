// A cluster run on several threads, byte-identical to the serial run (cluster.h: "Parallel
// runs").
//
// Why the replicas can run apart: in a colocated cluster without lower tiers, behind a router
// that reads no replica state, with arrivals that do not wait on completions, a replica's run
// depends only on the arrivals routed to it and on its own events — and on the order in which
// it meets them, which the serial run sets by the shared queue's (time, insertion) order. Each
// replica's own queue holds its events and *every* arrival (the others' too, doing nothing but
// queueing the next arrival, as the serial run's arrival handling does): the events it holds
// are then pushed in the same relative order as in the shared queue, so it pops them in the
// serial run's relative order, and its instants — begin, events, end-of-instant decision when
// touched — are the serial run's restricted to it. Its time integrals are exact sums
// (simulator/engine/engine.h), so seeing only its own instants changes none of them.
//
// What the serial run does across replicas — the order of observer calls, the instants at
// which the time series samples, the cluster's in-system integral — the merge replays: it runs
// the serial event loop over the cluster's own queue with the replicas' logged steps in place
// of their calls (an event popped: the replica's next step, its observer calls made, the
// events it queued pushed with the queue's next sequence numbers; an instant's end: the
// touched replicas' decisions in the order they were touched), so every observer sees the
// serial run's calls in the serial run's order.
//
// Windows: the main thread reads the next kWindowArrivals arrivals (the feed, as the serial
// run reads it) and routes them; the threads run their replicas up to the first arrival after
// the window; the merge replays up to it; the logs are cleared. Memory follows the window.
#include <algorithm>
#include <limits>

#include "simulator/cluster/cluster.h"
#include "simulator/cluster/replica_team.h"
#include "simulator/engine/event_loop.h"

namespace kvsim::sim {
namespace {

constexpr size_t kWindowArrivals = 64;

}  // namespace

struct alignas(kCacheLineBytes) ArrivalWindow {
  uint64_t base = 0;               // the global index of specs[0]
  std::vector<RequestSpec> specs;  // the window's arrivals, in order
  std::vector<int64_t> times_ns;   // their arrival times
  std::vector<uint32_t> replicas;  // where the router sent them
  bool has_next = false;           // an arrival follows the window
  int64_t next_ns = 0;             // its time
  uint64_t end() const { return base + specs.size(); }
  // Arrival `index` + 1 (the window's or the next one), which the serial run queues while
  // handling arrival `index`; false after the workload's last.
  bool next_after(uint64_t index, int64_t* time_ns) const {
    const uint64_t next = index + 1;
    if (next < end()) {
      *time_ns = times_ns[next - base];
      return true;
    }
    *time_ns = next_ns;
    return has_next;
  }
  void queue_next(uint64_t index, EventQueue* queue) const {
    int64_t time_ns = 0;
    if (next_after(index, &time_ns)) {
      queue->push(time_ns, EventKind::kArrival, index + 1, kClusterTarget);
    }
  }
};

namespace {

// One call into the replica's engine, logged as a step with the events it queues.
template <typename Call>
void logged_step(ReplicaRun& local, StepKind kind, int64_t time_ns, Call&& call) {
  ReplicaLog& log = *local.log;
  log.begin_step(kind, time_ns);
  local.queue.set_push_log(log.pushes());
  call(*local.engine);
  local.queue.set_push_log(nullptr);
  log.end_step();
}

// The end of the replica's instant: its decision, when an event or an arrival touched it.
void decide(ReplicaRun& local) {
  local.in_instant = false;
  if (!local.touched) return;
  local.touched = false;
  logged_step(local, StepKind::kDecide, local.instant_ns, [](Engine& e) { e.end_instant(); });
}

// Replica r's next arrival: the one after `index`, with the sequence number its push would take
// now, as the serial run pushes it while handling arrival `index`.
void queue_next_arrival(ReplicaRun& local, uint64_t index, const ArrivalWindow& window) {
  ReplicaRun::NextArrival& next = local.arrival;
  next.some = window.next_after(index, &next.time_ns);
  next.index = index + 1;
  next.seq = local.queue.take_seq();
}

// Whether the next arrival goes before the queue's top in the serial (time, seq) order.
bool arrival_first(const ReplicaRun& local) {
  if (!local.arrival.some) return false;
  if (local.queue.empty()) return true;
  const Event& top = local.queue.top();
  return local.arrival.time_ns != top.time_ns ? local.arrival.time_ns < top.time_ns
                                              : local.arrival.seq < top.seq;
}

// The time of what the replica meets next (the arrival, or the heap's top); -1: nothing.
int64_t next_time(const ReplicaRun& local, bool arrival) {
  if (arrival) return local.arrival.time_ns;
  return local.queue.empty() ? -1 : local.queue.top().time_ns;
}

// An instant of the replica's begins at `time_ns`: the rows before it that the replica's last
// decision is the last for get its state (ReplicaRun::row_interval_ns).
void begin_instant(ReplicaRun& local, int64_t time_ns) {
  local.in_instant = true;
  local.instant_ns = time_ns;
  if (local.row_interval_ns > 0 && local.next_row_ns < time_ns) {
    local.log->capture_state(time_ns);
    const int64_t interval = local.row_interval_ns;
    local.next_row_ns = (time_ns + interval - 1) / interval * interval;
  }
  local.engine->begin_instant(time_ns);
}

// Runs replica r (`local`) on its own queue up to the first arrival after the window (or to its
// end), logging each step.
void run_replica(ReplicaRun& local, uint32_t r, const ArrivalWindow& window) {
  EventQueue& queue = local.queue;
  while (true) {
    bool arrival = arrival_first(local);
    if (local.in_instant && next_time(local, arrival) != local.instant_ns) {
      decide(local);  // may queue its next iteration
      arrival = arrival_first(local);
    }
    const int64_t time_ns = next_time(local, arrival);
    if (time_ns < 0) return;
    if (arrival && local.arrival.index == window.end()) return;
    if (!local.in_instant) begin_instant(local, time_ns);
    if (arrival) {
      const uint64_t index = local.arrival.index;
      queue.pass(time_ns);
      const size_t i = index - window.base;
      if (window.replicas[i] == r) {
        logged_step(local, StepKind::kAdmit, time_ns, [&](Engine& e) { e.admit(window.specs[i]); });
        local.touched = true;
      }
      queue_next_arrival(local, index, window);
      continue;
    }
    const Event event = queue.pop();
    logged_step(local, StepKind::kHandle, event.time_ns, [&](Engine& e) { e.handle(event); });
    local.touched = true;
  }
}

// Runs the replica through the window; the rows up to its next instant get its state at the end.
void advance_replica(ReplicaRun& local, uint32_t r, const ArrivalWindow& window) {
  run_replica(local, r, window);
  if (local.row_interval_ns > 0) local.log->capture_state(std::numeric_limits<int64_t>::max());
}

}  // namespace

uint32_t Cluster::threads_for(const ClusterConfig& config, bool limits_in_flight) {
  const size_t n = config.replicas.size();
  if (config.threads <= 1 || n <= 1 || !config.tiers.empty() || limits_in_flight ||
      config.router != RouterKind::kRoundRobin) {
    return 1;
  }
  for (const ReplicaConfig& replica : config.replicas) {
    if (replica.engine.scheduler.role != EngineRole::kColocated) return 1;
  }
  return static_cast<uint32_t>(std::min<size_t>(config.threads, n));
}

Status Cluster::run_parallel() {
  replay_to_ = replica_observers();
  replays_.clear();
  for (size_t r = 0; r < engines_.size(); ++r) {
    ReplicaRun& local = *local_[r];
    local.row_interval_ns = row_interval_ns_;
    local.next_row_ns = row_interval_ns_;
    for (auto& window : local.windows) window = std::make_unique<ReplicaLog>(nullptr);
    replays_.push_back(std::make_unique<ReplicaReplay>());
    replays_.back()->kept = replica_state_of(*engines_[r]);
  }

  EventQueue arrivals;  // the feed's own queue: arrival times as the serial run has them
  KVSIM_RETURN_IF_ERROR(feed_.start(&arrivals));
  ArrivalWindow windows[kWindowsAhead];
  uint64_t filled = 0;  // windows read and routed
  bool more = true;     // arrivals left after the last window filled
  const auto fill_next = [&]() -> Status {
    ArrivalWindow& window = windows[filled % kWindowsAhead];
    window.base = filled == 0 ? 0 : windows[(filled - 1) % kWindowsAhead].end();
    more = fill_window(&arrivals, &window);
    ++filled;
    return feed_.status();
  };
  KVSIM_RETURN_IF_ERROR(fill_next());
  if (!windows[0].specs.empty()) {
    for (auto& local : local_) {
      local->arrival = {true, 0, windows[0].times_ns[0], local->queue.take_seq()};
    }
    events_.push(windows[0].times_ns[0], EventKind::kArrival, 0, kClusterTarget);
  }
  while (more && filled < kWindowsAhead) KVSIM_RETURN_IF_ERROR(fill_next());
  // A thread reads only its replicas, the windows published to it and `runs` (set before the
  // threads start): nothing the replay writes meanwhile.
  std::vector<ReplicaRun*> runs;
  for (auto& local : local_) runs.push_back(local.get());
  ReplicaTeam team(threads_, static_cast<uint32_t>(runs.size()),
                   [&runs, &windows](uint32_t r, uint64_t k) {
                     ReplicaRun& run = *runs[r];
                     advance_replica(run, r, windows[k % kWindowsAhead]);
                     run.windows[k % kWindowsAhead]->take(run.log.get());
                   });
  team.publish(filled);
  for (uint64_t k = 0; k < filled; ++k) {
    team.wait_done(k);
    for (size_t r = 0; r < local_.size(); ++r) {
      replays_[r]->log = local_[r]->windows[k % kWindowsAhead].get();
      replays_[r]->next_step = 0;
    }
    merge(windows[k % kWindowsAhead]);
    for (const auto& replay : replays_) {
      replay->keep_state();
      replay->log->clear();
    }
    if (more) {  // the window just replayed frees its place in the ring
      KVSIM_RETURN_IF_ERROR(fill_next());
      team.publish(filled);
    }
    report_progress();
    KVSIM_RETURN_IF_ERROR(stop_status(stop_, stats_.events));
  }
  return Status::ok();
}

// The next window's arrivals, read and routed as the serial run does; false when the workload
// ends with this window.
bool Cluster::fill_window(EventQueue* arrivals, ArrivalWindow* window) {
  window->specs.clear();
  window->times_ns.clear();
  window->replicas.clear();
  while (window->specs.size() < kWindowArrivals && !arrivals->empty()) {
    const Event event = arrivals->pop();
    const RequestSpec& spec = feed_.current();
    window->specs.push_back(spec);
    window->times_ns.push_back(event.time_ns);
    window->replicas.push_back(router_->route(spec, entry_pool_, *this));
    feed_.advance(arrivals);
    if (!feed_.status().is_ok()) return false;
  }
  window->has_next = !arrivals->empty();
  window->next_ns = window->has_next ? arrivals->top().time_ns : 0;
  return window->has_next;
}

// The serial event loop over the cluster's queue, up to the first arrival after the window,
// with the replicas' logged steps for their calls.
void Cluster::merge(const ArrivalWindow& window) {
  while (true) {
    if (merge_in_instant_ && (events_.empty() || events_.top().time_ns != events_.now_ns())) {
      end_merged_instant();
    }
    if (events_.empty()) return;
    const Event& top = events_.top();
    if (top.kind == EventKind::kArrival && top.payload == window.end()) return;
    if (!merge_in_instant_) {
      merge_in_instant_ = true;
      begin_instant(top.time_ns);
    }
    const Event event = events_.pop();
    ++stats_.events;
    if (event.kind == EventKind::kArrival) {
      ++stats_.arrivals;
      ++in_system_;
      const uint32_t r = window.replicas[event.payload - window.base];
      replay_step(r, StepKind::kAdmit);
      window.queue_next(event.payload, &events_);
    } else {
      replay_step(event.target, StepKind::kHandle);
    }
  }
}

void Cluster::end_merged_instant() {
  merge_in_instant_ = false;
  for (const uint32_t r : dirty_list_) {
    dirty_[r] = 0;
    replay_step(r, StepKind::kDecide);
  }
  dirty_list_.clear();
}

// Replica r's next logged step: it must be of `kind` at the merge's time (checked).
void Cluster::replay_step(uint32_t r, StepKind kind) {
  ReplicaReplay& replay = *replays_[r];
  const ReplicaLog& log = *replay.log;
  KVSIM_CHECK(replay.next_step < log.num_steps(), "a parallel replica logged fewer steps");
  const ReplicaStep& step = log.step(replay.next_step++);
  KVSIM_CHECK(step.kind == kind && step.time_ns == events_.now_ns(),
              "a parallel replica's step is out of the serial run's order");
  log.replay(step, replay_to_);
  for (uint32_t p = step.first_push; p < step.end_push; ++p) {
    events_.push(log.pushed_times()[p], EventKind::kIterationEnd, 0, r);
  }
  if (kind != StepKind::kDecide) mark_dirty(r);
}

}  // namespace kvsim::sim
