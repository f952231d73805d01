// The text summary's reading names what bound a run from queueing, busy time and KV pressure,
// and the drop line names each reason with its count.
#include "simulator/output/summary_reading.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kvsim::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A run whose requests spent `queue_s` of a 10 s mean E2E waiting.
Summary run(double queue_s, double busy_fraction, double kv_peak, uint64_t preemptions) {
  Summary s;
  s.queue_s.mean = queue_s;
  s.e2e_s.mean = 10;
  s.busy_fraction = busy_fraction;
  s.kv_usage_peak = kv_peak;
  s.preemptions = preemptions;
  return s;
}

TEST(SummaryReadingTest, ABusyEngineWithAFullPoolIsComputeBoundNotKvBound) {
  // The reading the issue quotes: every replica 99.9% busy, pool full, requests queued.
  const std::string text = summary_reading(run(5, 0.999, 1.0, 462));
  EXPECT_THAT(text, StartsWith("reading  compute binds: the busiest engine iterated 99.9%"));
  EXPECT_THAT(text, HasSubstr("the KV pool filled as well (peak 100.0%, 462 preemptions)"));
  EXPECT_THAT(text, Not(HasSubstr("not compute")));
}

TEST(SummaryReadingTest, EachCombinationNamesItsBindingLimit) {
  EXPECT_THAT(summary_reading(run(5, 0.95, 0.5, 0)),
              StartsWith("reading  compute binds: the busiest engine iterated 95.0%"));
  EXPECT_THAT(summary_reading(run(5, 0.6, 0.97, 0)),
              StartsWith("reading  KV memory binds: the pool filled (peak 97.0%)"));
  EXPECT_THAT(summary_reading(run(5, 0.6, 0.5, 0)),
              StartsWith("reading  the scheduler's batch limits"));
  // Queueing under 10% of E2E: the engines kept up, whatever their busy time.
  const std::string kept_up = summary_reading(run(0.5, 1.0, 0.85, 0));
  EXPECT_THAT(kept_up, StartsWith("reading  the arrival rate bounds this run"));
  EXPECT_THAT(kept_up, HasSubstr("little KV headroom"));
}

TEST(SummaryReadingTest, DroppedRequestsAreCountedByReason) {
  Summary s;
  EXPECT_EQ(dropped_reasons(s), "");
  s.dropped_too_long = 35;
  s.dropped_never_fits = 2;
  EXPECT_EQ(dropped_reasons(s),
            "dropped  35 too_long (longer than the model's context), 2 never_fits (could not be "
            "scheduled alone)\n");
}

}  // namespace
}  // namespace kvsim::sim
