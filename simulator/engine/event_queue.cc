#include "simulator/engine/event_queue.h"

#include <algorithm>
#include <string>

#include "core/base/check.h"

namespace kvsim::sim {
namespace {

// std heap functions build a max-heap; "later" as less-than puts the earliest on top.
bool later(const Event& a, const Event& b) {
  if (a.time_ns != b.time_ns) return a.time_ns > b.time_ns;
  return a.seq > b.seq;
}

}  // namespace

void EventQueue::push(int64_t time_ns, EventKind kind, uint64_t payload, uint32_t target) {
  KVSIM_CHECK(time_ns >= now_ns_, "event pushed into the past: " + std::to_string(time_ns) +
                                      " ns < now " + std::to_string(now_ns_) + " ns");
  heap_.push_back(Event{time_ns, next_seq_++, kind, target, payload});
  if (push_log_ != nullptr) push_log_->push_back(time_ns);
  std::push_heap(heap_.begin(), heap_.end(), later);
}

Event EventQueue::pop() {
  KVSIM_CHECK(!heap_.empty(), "pop() on an empty event queue");
  std::pop_heap(heap_.begin(), heap_.end(), later);
  const Event event = heap_.back();
  heap_.pop_back();
  now_ns_ = event.time_ns;
  return event;
}

void EventQueue::pass(int64_t time_ns) {
  KVSIM_CHECK(time_ns >= now_ns_, "the clock moved backwards");
  now_ns_ = time_ns;
}

const Event& EventQueue::top() const {
  KVSIM_CHECK(!heap_.empty(), "top() on an empty event queue");
  return heap_.front();
}

}  // namespace kvsim::sim
