// ArrivalFeed: a RequestSource as arrival events, one queued at a time (so memory follows the
// requests in flight, not the workload). Each arrival event is an EventKind::kArrival for
// `target` at the request's time (or now, for a source that is late).
//
// With source.max_in_flight() = N > 0 the feed is the client of a benchmark that keeps at most N
// requests outstanding (`vllm bench serve --max-concurrency N`, genai-perf's and AIPerf's
// concurrency): a request whose time has come while N are in flight waits, and is sent when
// one of them finishes (a front end later, RequestRecord::frontend_ns: when the client has its
// last token) or is dropped. Its arrival becomes the time it is sent, as the client
// measures TTFT from the send. With every request at t = 0 (arrival: burst) this is a closed
// loop of N users, each sending its next request when the last one ends. The feed learns of
// completions as an observer of the engines (add it to each, as for any SimObserver).
#pragma once

#include <cstdint>
#include <memory>

#include "core/base/status.h"
#include "simulator/engine/event_queue.h"
#include "simulator/engine/request.h"
#include "simulator/engine/sim_observer.h"

namespace kvsim::sim {

class ArrivalFeed final : public SimObserver {
 public:
  // The limit is the source's max_in_flight().
  ArrivalFeed(std::unique_ptr<RequestSource> source, uint32_t target)
      : source_(std::move(source)), target_(target), max_in_flight_(source_->max_in_flight()) {}

  // Queues the first arrival; the error of a malformed first row.
  Status start(EventQueue* events);
  // The request whose arrival event came out of the queue last.
  const RequestSpec& current() const { return next_; }
  // After current() is handled: queues the next arrival (or holds it while max_in_flight
  // requests are out). A malformed row is kept in status().
  void advance(EventQueue* events);
  const Status& status() const { return status_; }
  const RequestSource& source() const { return *source_; }
  // Whether the feed limits the requests in flight (and so must observe the engines).
  bool limits_in_flight() const { return max_in_flight_ > 0; }

  void on_request_finished(const RequestRecord& request) override;
  void on_request_dropped(const RequestRecord& request, DropReason reason) override;

 private:
  Status pull();
  void send(int64_t earliest_ns);          // queues the arrival of next_, not before earliest_ns
  void one_out(int64_t next_earliest_ns);  // a request left: a held request may go then

  std::unique_ptr<RequestSource> source_;
  uint32_t target_;
  uint32_t max_in_flight_;  // 0: no limit (an open loop)
  EventQueue* events_ = nullptr;
  RequestSpec next_;
  bool held_ = false;       // next_ waits for a request to end
  uint32_t in_flight_ = 0;  // queued or in the system: sent, not yet finished or dropped
  Status status_;
};

}  // namespace kvsim::sim
