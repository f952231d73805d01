#include "simulator/engine/arrival_feed.h"

#include "core/base/check.h"

namespace kvsim::sim {

Status ArrivalFeed::start(EventQueue* events) {
  events_ = events;
  return pull();
}

void ArrivalFeed::advance(EventQueue* events) {
  events_ = events;
  status_ = pull();
}

Status ArrivalFeed::pull() {
  KVSIM_ASSIGN_OR_RETURN(const bool more, source_->next(&next_));
  if (!more) return Status::ok();
  if (limits_in_flight() && in_flight_ >= max_in_flight_) {
    held_ = true;
    return Status::ok();
  }
  send(events_->now_ns());
  return Status::ok();
}

void ArrivalFeed::send(int64_t earliest_ns) {
  if (next_.arrival_ns < earliest_ns) next_.arrival_ns = earliest_ns;
  if (limits_in_flight()) ++in_flight_;
  events_->push(next_.arrival_ns, EventKind::kArrival, 0, target_);
}

void ArrivalFeed::one_out(int64_t next_earliest_ns) {
  KVSIM_CHECK(in_flight_ > 0, "a request ended that the feed did not send");
  --in_flight_;
  if (held_) {
    held_ = false;
    send(next_earliest_ns);
  }
}

void ArrivalFeed::on_request_finished(const RequestRecord& request) {
  // The client has the last token a front end after the engine: its next request follows.
  if (limits_in_flight()) one_out(events_->now_ns() + request.frontend_ns);
}

void ArrivalFeed::on_request_dropped(const RequestRecord& /*request*/, DropReason /*reason*/) {
  if (limits_in_flight()) one_out(events_->now_ns());
}

}  // namespace kvsim::sim
