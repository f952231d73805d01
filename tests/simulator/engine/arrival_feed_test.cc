// A client that keeps at most N requests out (workload.max_concurrency,
// simulator/engine/arrival_feed.h): with every request at t = 0 a closed loop of N users, each
// sending its next request when one ends; on one engine, on a cluster, and with drops.
#include "simulator/engine/arrival_feed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "simulator/simulation.h"
#include "tests/simulator/run_scenario.h"

namespace kvsim::sim {
namespace {

// Records every request's arrival and its end (finish or drop).
class InFlightLog final : public SimObserver {
 public:
  void on_request_finished(const RequestRecord& r) override {
    spans.push_back({r.arrival_ns, *r.finish_ns});
    ids.push_back(r.id);
  }
  void on_request_dropped(const RequestRecord& r, DropReason /*reason*/) override {
    spans.push_back({r.arrival_ns, r.arrival_ns});
    ids.push_back(r.id);
    ++dropped;
  }
  // The most requests out at once: arrivals before ends at the same instant, since a freed
  // slot is taken at the instant it frees.
  int max_in_flight() const {
    std::vector<std::pair<int64_t, int>> events;
    for (const auto& [arrival, end] : spans) {
      events.push_back({arrival, +1});
      events.push_back({end, -1});
    }
    std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;
    });
    int now = 0, most = 0;
    for (const auto& [time, delta] : events) most = std::max(most, now += delta);
    return most;
  }
  std::vector<std::pair<int64_t, int64_t>> spans;  // (sent, ended), in the order they ended
  std::vector<uint64_t> ids;                       // each span's request
  int dropped = 0;
};

InFlightLog run(const std::string& yaml, const std::vector<std::string>& overrides) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "closed_loop.yaml";
  std::ofstream(path) << yaml;
  InFlightLog log;
  RunOptions options;
  options.observers.push_back(&log);
  testing::run_scenario(path.string(), overrides, options);
  return log;
}

constexpr char kClosedLoop[] =
    "model: llama3-8b\n"
    "device: h100-sxm\n"
    "workload:\n"
    "  max_concurrency: 3\n"
    "  synthetic:\n"
    "    num_requests: 40\n"
    "    arrival: burst\n"
    "    prompt_tokens: {dist: uniform, min: 64, max: 2048}\n"
    "    output_tokens: {dist: uniform, min: 2, max: 200}\n";

// The client's front end by default (cost_model.frontend_s): it has a request's last token
// that long after the engine finished it.
const int64_t kFrontendNs = std::llround(kDefaultFrontendS * 1e9);

// At most N out; the first N at t = 0; every later request sent `gap_ns` after another ended
// (the client's front end: it sends when it has the last token).
void expect_closed_loop(const InFlightLog& log, size_t n, size_t total,
                        int64_t gap_ns = kFrontendNs) {
  ASSERT_EQ(log.spans.size(), total);
  EXPECT_EQ(log.max_in_flight(), static_cast<int>(n));
  std::multiset<int64_t> ends;
  size_t at_zero = 0;
  for (const auto& [arrival, end] : log.spans) {
    ends.insert(end);
    if (arrival == 0) ++at_zero;
  }
  EXPECT_EQ(at_zero, n);
  for (const auto& [arrival, end] : log.spans) {
    if (arrival > 0) {
      EXPECT_TRUE(ends.count(arrival - gap_ns) > 0) << "sent at " << arrival;
    }
  }
}

TEST(ArrivalFeed, ClosedLoopKeepsNInFlightAndSendsEachNextWhenOneEnds) {
  expect_closed_loop(run(kClosedLoop, {}), 3, 40);
  // Without a front end, at the instant it ended.
  expect_closed_loop(run(kClosedLoop, {"cost_model.frontend_s=0"}), 3, 40, 0);
  expect_closed_loop(run(kClosedLoop, {"cost_model.frontend_s=0.5"}), 3, 40, 500'000'000);
}

TEST(ArrivalFeed, ClosedLoopOnAClusterCountsEveryReplicasCompletions) {
  expect_closed_loop(run(std::string(kClosedLoop) + "cluster:\n"
                                                    "  router: round_robin\n"
                                                    "  replicas: [{count: 2}]\n",
                         {"workload.max_concurrency=5"}),
                     5, 40);
}

TEST(ArrivalFeed, ADroppedRequestFreesItsSlot) {
  // max_model_len 1,024: the prompts above it are dropped at arrival, and the loop goes on.
  const InFlightLog log = run(kClosedLoop, {"scheduler.max_model_len=1024"});
  EXPECT_GT(log.dropped, 0);
  ASSERT_EQ(log.spans.size(), 40u);
  EXPECT_LE(log.max_in_flight(), 3);
}

TEST(ArrivalFeed, WithoutALimitArrivalsAreTheWorkloads) {
  const InFlightLog log = run(kClosedLoop, {"workload.max_concurrency=0"});
  EXPECT_EQ(log.max_in_flight(), 40);  // the whole burst at once
}

TEST(ArrivalFeed, ALimitedRateSendsAtTheLaterOfItsTimeAndAFreeSlot) {
  // Arrivals every 1 ms, far faster than requests finish: with 2 slots the client holds the
  // rest back, so no request is sent before its workload time and at most 2 are ever out.
  const InFlightLog log =
      run(kClosedLoop, {"workload.synthetic.arrival=constant", "workload.synthetic.rate=1000",
                        "workload.max_concurrency=2"});
  EXPECT_EQ(log.max_in_flight(), 2);
  size_t held = 0;
  for (size_t i = 0; i < log.spans.size(); ++i) {
    const int64_t workload_ns = static_cast<int64_t>(log.ids[i]) * 1'000'000;
    EXPECT_GE(log.spans[i].first, workload_ns);
    if (log.spans[i].first > workload_ns) ++held;
  }
  EXPECT_GT(held, 30u);
}

}  // namespace
}  // namespace kvsim::sim
