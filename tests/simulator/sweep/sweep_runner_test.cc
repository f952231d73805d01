#include <gmock/gmock.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "simulator/sweep/sweep_merge.h"
#include "tests/simulator/sweep/sweep_test_util.h"

namespace kvsim::sim::testing {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

const char* kSweep = "base: {a: 0, b: 0}\ngrid:\n  a: [1, 2, 3, 4]\n  b: [10, 20, 30]\n";

SweepRunResult run(const SweepSpec& spec, const fs::path& dir, size_t jobs, PointRunner runner,
                   bool resume = false, size_t shard = 0, size_t shards = 1) {
  SweepRunOptions options;
  options.out_dir = dir;
  options.jobs = jobs;
  options.resume = resume;
  options.shard_index = shard;
  options.shard_count = shards;
  auto result = run_sweep(spec, expand(spec), runner, options);
  EXPECT_TRUE(result.is_ok()) << result.status().message();
  return result.is_ok() ? *result : SweepRunResult{};
}

TEST(SweepRunnerTest, WritesOneRowPerPointWithKeysAndMetrics) {
  const SweepSpec spec = sweep_from_text(kSweep);
  const fs::path dir = fresh_dir("rows");
  const SweepRunResult result = run(spec, dir, 1, fake_runner());
  EXPECT_EQ(result.ran, 12u);
  const std::string csv = summary_of(dir);
  EXPECT_THAT(csv, HasSubstr("point_id,point_name,status,error,a,b,sum,x2\n"));
  const auto points = expand(spec);
  EXPECT_THAT(csv, HasSubstr(points[5].id + ",\"a=2,b=30\",ok,,2,30,32,4\n"));
  EXPECT_TRUE(fs::exists(dir / "points" / points[5].id / "extra.txt"));
  EXPECT_TRUE(fs::exists(dir / "points" / points[5].id / "config.yaml"));
  EXPECT_TRUE(fs::exists(dir / "sweep.json"));
  fs::remove_all(dir);
}

TEST(SweepRunnerTest, AFailingPointIsRecordedAndTheOthersFinish) {
  const SweepSpec spec = sweep_from_text(kSweep);
  const fs::path dir = fresh_dir("fail");
  const SweepRunResult result = run(spec, dir, 2, fake_runner(/*fail_a=*/3));
  EXPECT_EQ(result.ran, 12u);
  EXPECT_EQ(result.failed, 3u);
  const std::string csv = summary_of(dir);
  EXPECT_THAT(csv, HasSubstr("\"a=3,b=20\",error,a = 3 is impossible,3,20,,\n"));
  EXPECT_THAT(csv, HasSubstr("\"a=4,b=30\",ok,,4,30,34,8\n"));
  fs::remove_all(dir);
}

// Wraps a runner and records the most calls inside it at once. Each call waits (30 s at most,
// once) until a second call has come in, so a parallel run provably overlaps its points and
// a serial one shows as a most of 1 instead of hanging.
class Overlap {
 public:
  PointRunner wrap(PointRunner inner) {
    return [this, inner](const SweepPoint& point, const fs::path& dir) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        most_ = std::max(most_, ++inside_);
        changed_.notify_all();
        if (!changed_.wait_for(lock, std::chrono::seconds(30),
                               [this] { return most_ >= 2 || gave_up_; })) {
          gave_up_ = true;
        }
      }
      PointOutcome outcome = inner(point, dir);
      std::lock_guard<std::mutex> lock(mutex_);
      --inside_;
      return outcome;
    };
  }
  size_t most() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return most_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  size_t inside_ = 0, most_ = 0;
  bool gave_up_ = false;
};

TEST(SweepRunnerTest, ParallelRunEqualsSerialRun) {
  const SweepSpec spec = sweep_from_text(kSweep);
  const fs::path serial = fresh_dir("serial");
  const fs::path parallel = fresh_dir("parallel");
  run(spec, serial, 1, fake_runner());
  Overlap overlap;
  run(spec, parallel, 4, overlap.wrap(fake_runner()));
  EXPECT_GE(overlap.most(), 2u) << "the points of a 4-job run never ran at the same time";
  EXPECT_EQ(summary_of(serial), summary_of(parallel));
  fs::remove_all(serial);
  fs::remove_all(parallel);
}

// Points moved into place. A point being finished has its result.json in its temporary
// ".<id>.tmp<pid>-<worker>" folder a moment before the rename (longer since write_file_atomic
// syncs), and a resumed run throws that folder away: it does not count.
size_t finished_points(const fs::path& dir) {
  size_t count = 0;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir / "points", error)) {
    if (entry.path().filename().string().starts_with(".")) continue;
    count += fs::exists(entry.path() / "result.json") ? 1 : 0;
  }
  return count;
}

// A sweep killed with SIGKILL part-way and then resumed ends with the same summary.csv as an
// uninterrupted run, and reruns only the points that had not finished. The child finishes
// four points and is killed inside the fifth (whose runner waits to be killed, 60 s at most),
// so where it dies does not depend on timing.
TEST(SweepRunnerTest, KilledAndResumedEqualsUninterrupted) {
  const SweepSpec spec = sweep_from_text(kSweep);
  const fs::path whole = fresh_dir("whole");
  const fs::path killed = fresh_dir("killed");
  run(spec, whole, 1, fake_runner());

  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    SweepRunOptions options;
    options.out_dir = killed;
    std::atomic<int> calls{0};
    const PointRunner finish_four = [&calls, inner = fake_runner()](const SweepPoint& point,
                                                                    const fs::path& dir) {
      if (++calls > 4) {
        std::this_thread::sleep_for(std::chrono::seconds(60));
        ::_exit(1);
      }
      return inner(point, dir);
    };
    (void)run_sweep(spec, expand(spec), finish_four, options);
    ::_exit(0);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (finished_points(killed) < 4 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  const size_t before = finished_points(killed);
  ASSERT_EQ(before, 4u) << "the child did not finish its first four points within 60 s";

  const SweepRunResult resumed = run(spec, killed, 1, fake_runner(), /*resume=*/true);
  EXPECT_EQ(resumed.skipped, before);
  EXPECT_EQ(resumed.ran, 12u - before);
  EXPECT_EQ(summary_of(killed), summary_of(whole));
  fs::remove_all(whole);
  fs::remove_all(killed);
}

// options.stop set while the third point runs (one worker): that point finishes and is
// recorded, no other starts, the run says it was cancelled, and --resume runs the rest to the
// same summary.csv as an uninterrupted run.
TEST(SweepRunnerTest, StopFinishesTheRunningPointAndStartsNoOther) {
  const SweepSpec spec = sweep_from_text(kSweep);
  const fs::path whole = fresh_dir("whole_stop");
  const fs::path stopped = fresh_dir("stopped");
  run(spec, whole, 1, fake_runner());
  std::atomic<bool> stop{false};
  std::atomic<int> calls{0};
  const PointRunner stop_in_third = [&, inner = fake_runner()](const SweepPoint& point,
                                                               const fs::path& dir) {
    if (++calls == 3) stop = true;
    return inner(point, dir);
  };
  SweepRunOptions options;
  options.out_dir = stopped;
  options.stop = &stop;
  auto result = run_sweep(spec, expand(spec), stop_in_third, options);
  ASSERT_FALSE(result.is_ok());
  EXPECT_EQ(result.status().message(), "sweep stopped after 3 of 12 points");
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(finished_points(stopped), 3u);
  const SweepRunResult resumed = run(spec, stopped, 1, fake_runner(), /*resume=*/true);
  EXPECT_EQ(resumed.skipped, 3u);
  EXPECT_EQ(summary_of(stopped), summary_of(whole));
  fs::remove_all(whole);
  fs::remove_all(stopped);
}

TEST(SweepRunnerTest, ShardsMergedEqualTheUnshardedRun) {
  const SweepSpec spec = sweep_from_text(kSweep);
  const fs::path whole = fresh_dir("unsharded");
  run(spec, whole, 1, fake_runner(/*fail_a=*/2));
  std::vector<fs::path> shards;
  for (size_t i = 0; i < 5; ++i) {
    shards.push_back(fresh_dir("shard" + std::to_string(i)));
    run(spec, shards.back(), 1, fake_runner(/*fail_a=*/2), false, i, 5);
  }
  const fs::path merged = fresh_dir("merged");
  auto result = merge_sweeps(shards, merged);
  ASSERT_TRUE(result.is_ok()) << result.status().message();
  EXPECT_EQ(result->num_points, 12u);
  EXPECT_EQ(result->num_failed, 3u);
  EXPECT_EQ(summary_of(merged), summary_of(whole));

  auto missing = merge_sweeps({shards[0], shards[1]}, fresh_dir("partial"));
  ASSERT_FALSE(missing.is_ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("missing from every folder"));
  auto twice = merge_sweeps({shards[0], shards[1], shards[2], shards[3], shards[4], whole},
                            fresh_dir("twice"));
  ASSERT_FALSE(twice.is_ok());
  EXPECT_THAT(twice.status().message(), HasSubstr("is in both"));
  for (const fs::path& dir : shards) fs::remove_all(dir);
  for (const char* name : {"unsharded", "merged", "partial", "twice"})
    fs::remove_all(fresh_dir(name));
}

TEST(SweepRunnerTest, BadShardIsAnError) {
  const SweepSpec spec = sweep_from_text(kSweep);
  SweepRunOptions options;
  options.out_dir = fresh_dir("badshard");
  options.shard_index = 3;
  options.shard_count = 3;
  EXPECT_FALSE(run_sweep(spec, expand(spec), fake_runner(), options).is_ok());
}

}  // namespace
}  // namespace kvsim::sim::testing
