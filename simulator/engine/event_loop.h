// The discrete-event loop of a lone engine and of a cluster, written once (the feed that turns
// a workload into arrival events: simulator/engine/arrival_feed.h).
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

#include "core/base/status.h"
#include "simulator/engine/event_queue.h"

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

}  // namespace kvsim::sim
