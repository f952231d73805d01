// The discrete-event loop of a lone engine and of a cluster, written once, and the feed that
// turns a workload into arrival events.
//
// run_event_loop(events, driver, ...): each instant (the time of the earliest event)
//   driver.begin_instant(now)   time integrals advance, samplers emit the rows before now
//   driver.handle(event)        every event of the instant, in queue order; a bad input row
//                               (driver.input_status()) ends the run with its Status
//   driver.end_instant()        idle engines decide and start their next step
// and every `progress_every_events` events handled, driver.report_progress() and a check of
// `stop` (a cancelled Status). It returns OK when the queue runs dry. A template, so that the
// engine's loop pays no virtual call per event.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "core/base/status.h"
#include "simulator/engine/event_queue.h"
#include "simulator/engine/request.h"

namespace kvsim::sim {

// A cancelled Status naming the events handled when `stop` is set, OK otherwise (null: never
// stops).
Status stop_status(const std::atomic<bool>* stop, uint64_t events);

template <typename Driver>
Status run_event_loop(EventQueue& events, Driver& driver, uint64_t progress_every_events,
                      const std::atomic<bool>* stop) {
  uint64_t next_progress_events = 0;
  while (!events.empty()) {
    const int64_t now = events.top().time_ns;
    driver.begin_instant(now);
    while (!events.empty() && events.top().time_ns == now) {
      driver.handle(events.pop());
      KVSIM_RETURN_IF_ERROR(driver.input_status());
    }
    driver.end_instant();
    if (driver.num_events() >= next_progress_events) {
      next_progress_events = driver.num_events() + progress_every_events;
      driver.report_progress();
      KVSIM_RETURN_IF_ERROR(stop_status(stop, driver.num_events()));
    }
  }
  return Status::ok();
}

// ArrivalFeed: a RequestSource as arrival events, one queued at a time (so memory follows the
// requests in flight, not the workload). Each arrival event is an EventKind::kArrival for
// `target` at the request's time (or now, for a source that is late).
class ArrivalFeed {
 public:
  ArrivalFeed(std::unique_ptr<RequestSource> source, uint32_t target)
      : source_(std::move(source)), target_(target) {}

  // Queues the first arrival; the error of a malformed first row.
  Status start(EventQueue* events) { return pull(events); }
  // The request whose arrival event came out of the queue last.
  const RequestSpec& current() const { return next_; }
  // After current() is handled: queues the next arrival. A malformed row is kept in status().
  void advance(EventQueue* events) { status_ = pull(events); }
  const Status& status() const { return status_; }
  const RequestSource& source() const { return *source_; }

 private:
  Status pull(EventQueue* events) {
    KVSIM_ASSIGN_OR_RETURN(const bool more, source_->next(&next_));
    if (more) {
      events->push(next_.arrival_ns > events->now_ns() ? next_.arrival_ns : events->now_ns(),
                   EventKind::kArrival, 0, target_);
    }
    return Status::ok();
  }

  std::unique_ptr<RequestSource> source_;
  uint32_t target_;
  RequestSpec next_;
  Status status_;
};

}  // namespace kvsim::sim
