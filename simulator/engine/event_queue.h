// EventQueue: the future events of one simulation, earliest first.
//
// Events are ordered by integer time in nanoseconds, then by the sequence number given at
// insertion (ns-3's EventKey): two events at the same instant come out in the order they were
// pushed, so a run never depends on how the heap breaks ties. Time is int64_t ns everywhere
// in the simulator (2^63 ns is 292 years), so no floating-point rounding decides an order.
// Invariants: pop() never returns an event earlier than one returned before it, provided no
// event is pushed into the past (checked). Several engines of a cluster share one queue, one
// clock (simulator/cluster/cluster.h); an event's target says whose it is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/base/cache_line_allocator.h"

namespace kvsim::sim {

enum class EventKind : uint8_t {
  kArrival,        // the next request of the workload arrives (payload unused)
  kIterationEnd,   // the engine iteration in flight finishes (payload: iteration number)
  kSwapEnd,        // a swap transfer over the host link finishes (payload: request slot)
  kLoadEnd,        // a load of prefix blocks from a lower KV tier ends (payload: request slot)
  kKvTransferEnd,  // a KV transfer between two instances ends (payload: the cluster's transfer)
};

// Event::target of the events a cluster handles itself (arrivals, KV transfers between
// instances); an engine's events carry its replica index. A lone engine uses target 0.
inline constexpr uint32_t kClusterTarget = 0xFFFFFFFFu;

struct Event {
  int64_t time_ns = 0;
  uint64_t seq = 0;  // insertion order, the tie-break
  EventKind kind = EventKind::kArrival;
  uint32_t target = 0;   // who handles it: a replica index, or kClusterTarget
  uint64_t payload = 0;  // meaning depends on kind
};

class EventQueue {
 public:
  // Adds an event; `time_ns` must not be before the last popped event's time.
  void push(int64_t time_ns, EventKind kind, uint64_t payload = 0, uint32_t target = 0);
  // Removes and returns the earliest event. Checked: the queue is not empty.
  Event pop();
  const Event& top() const;

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // Time of the last popped event (0 before any): the simulation clock.
  int64_t now_ns() const { return now_ns_; }
  // Events pushed so far.
  uint64_t num_pushed() const { return next_seq_; }
  // For an event kept outside the heap (a parallel cluster replica's next arrival:
  // simulator/cluster/cluster_parallel.cc): take_seq() gives it the sequence number a push
  // would, and pass(time_ns) moves the clock to it as pop() would (checked: not backwards).
  uint64_t take_seq() { return next_seq_++; }
  void pass(int64_t time_ns);
  // While set, every push also appends its time to `log` (a parallel cluster run records what
  // each replica queued: simulator/cluster/replica_log.h); null stops it.
  void set_push_log(std::vector<int64_t>* log) { push_log_ = log; }

 private:
  std::vector<Event, CacheLineAllocator<Event>> heap_;  // its own lines (a parallel run's)
  std::vector<int64_t>* push_log_ = nullptr;
  uint64_t next_seq_ = 0;
  int64_t now_ns_ = 0;
};

}  // namespace kvsim::sim
