#include "simulator/engine/event_queue.h"

#include <gtest/gtest.h>

namespace kvsim::sim {
namespace {

TEST(EventQueue, OrdersByTimeThenInsertion) {
  EventQueue queue;
  queue.push(30, EventKind::kArrival, 1);
  queue.push(10, EventKind::kIterationEnd, 2);
  queue.push(30, EventKind::kSwapEnd, 3);
  queue.push(10, EventKind::kArrival, 4);
  queue.push(20, EventKind::kArrival, 5);
  std::vector<uint64_t> order;
  std::vector<int64_t> times;
  while (!queue.empty()) {
    const Event event = queue.pop();
    order.push_back(event.payload);
    times.push_back(queue.now_ns());
  }
  EXPECT_EQ(order, (std::vector<uint64_t>{2, 4, 5, 1, 3}));
  EXPECT_EQ(times, (std::vector<int64_t>{10, 10, 20, 30, 30}));
  EXPECT_EQ(queue.num_pushed(), 5u);
}

TEST(EventQueue, ManyTiesComeOutInInsertionOrder) {
  EventQueue queue;
  for (uint64_t i = 0; i < 1000; ++i) queue.push(7, EventKind::kArrival, i);
  for (uint64_t i = 0; i < 1000; ++i) EXPECT_EQ(queue.pop().payload, i);
}

TEST(EventQueueDeathTest, RejectsEventsInThePast) {
  EventQueue queue;
  queue.push(100, EventKind::kArrival);
  queue.pop();
  EXPECT_DEATH(queue.push(99, EventKind::kArrival), "into the past");
}

}  // namespace
}  // namespace kvsim::sim
