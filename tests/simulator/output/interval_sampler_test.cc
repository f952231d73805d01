// The one sampler behind every time series (simulator/output/interval_sampler.h): row k at
// k x interval, the state after the last iteration that ended at or before it, the tokens of
// the iterations that ended in its interval, and the partial row after the run's end.
#include "simulator/output/interval_sampler.h"

#include <gtest/gtest.h>

#include <vector>

namespace kvsim::sim {
namespace {

constexpr int64_t kS = 1'000'000'000;

TEST(IntervalSampler, EmitsEachRowTimeOncePassed) {
  IntervalSampler sampler(kS);
  std::vector<int64_t> rows;
  const auto emit = [&](int64_t t) { rows.push_back(t); };
  sampler.advance_to(kS / 2, false, emit);
  EXPECT_TRUE(rows.empty());
  sampler.advance_to(kS, false, emit);  // exclusive: the row at 1 s is not passed yet
  EXPECT_TRUE(rows.empty());
  sampler.advance_to(kS, true, emit);
  EXPECT_EQ(rows, (std::vector<int64_t>{kS}));
  sampler.advance_to(3 * kS + 1, false, emit);
  EXPECT_EQ(rows, (std::vector<int64_t>{kS, 2 * kS, 3 * kS}));
  sampler.finish(
      3 * kS + 1, [] { return true; }, emit);  // pending work: the partial row at 4 s
  EXPECT_EQ(rows.back(), 4 * kS);
}

class Rows final : public EngineSeries {
 public:
  explicit Rows(int64_t interval_ns) : EngineSeries(interval_ns) {}
  std::vector<SeriesRow> rows;

 private:
  void on_row(const SeriesRow& row) override { rows.push_back(row); }
};

IterationRecord iteration(int64_t end_ns, uint64_t new_tokens, uint64_t outputs) {
  IterationRecord it;
  it.end_ns = end_ns;
  it.shape.new_tokens = new_tokens;
  it.output_tokens = outputs;
  return it;
}

TEST(EngineSeries, RowsShowTheStateAfterTheLastIterationAndTheirIntervalsTokens) {
  Rows series(kS);
  EngineSnapshot a, b, last;
  a.kv_blocks_used = 5;
  b.kv_blocks_used = 7;
  series.on_iteration(iteration(kS / 2, 100, 1), a);
  series.on_iteration(iteration(kS, 50, 2), b);  // ends at the row time: counts in row 1
  series.on_iteration(iteration(5 * kS / 2, 10, 1), a);
  last.time_ns = 5 * kS / 2;
  ASSERT_TRUE(series.finish(last).is_ok());
  ASSERT_EQ(series.rows.size(), 3u);  // 1 s, 2 s, and the partial row at 3 s
  EXPECT_EQ(series.rows[0].state.kv_blocks_used, 7u);
  EXPECT_DOUBLE_EQ(series.rows[0].tokens_per_s, 150);
  EXPECT_DOUBLE_EQ(series.rows[0].output_tokens_per_s, 3);
  EXPECT_EQ(series.rows[1].state.kv_blocks_used, 7u);
  EXPECT_DOUBLE_EQ(series.rows[1].tokens_per_s, 0);
  EXPECT_EQ(series.rows[2].time_ns, 3 * kS);
  EXPECT_EQ(series.rows[2].state.kv_blocks_used, 0u);  // the final state
  EXPECT_DOUBLE_EQ(series.rows[2].tokens_per_s, 10);
}

}  // namespace
}  // namespace kvsim::sim
