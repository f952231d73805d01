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
  send();
  return Status::ok();
}

void ArrivalFeed::send() {
  if (next_.arrival_ns < events_->now_ns()) next_.arrival_ns = events_->now_ns();
  if (limits_in_flight()) ++in_flight_;
  events_->push(next_.arrival_ns, EventKind::kArrival, 0, target_);
}

void ArrivalFeed::one_out() {
  KVSIM_CHECK(in_flight_ > 0, "a request ended that the feed did not send");
  --in_flight_;
  if (held_) {
    held_ = false;
    send();
  }
}

void ArrivalFeed::on_request_finished(const RequestRecord& /*request*/) {
  if (limits_in_flight()) one_out();
}

void ArrivalFeed::on_request_dropped(const RequestRecord& /*request*/, DropReason /*reason*/) {
  if (limits_in_flight()) one_out();
}

}  // namespace kvsim::sim
