#include "simulator/sweep/sweep_runner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "core/config/yaml_io.h"
#include "simulator/io/atomic_file.h"
#include "simulator/sweep/sweep_results.h"

namespace kvsim::sim {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr double kSummaryRewriteInterval_s = 1.0;

PointRecord record_for(const SweepPoint& point) {
  PointRecord record;
  record.index = point.index;
  record.id = point.id;
  record.name = point.name;
  for (const SweepValue& value : point.values) record.values.emplace_back(value.key, value.text);
  return record;
}

// Runs one point in a temporary folder and renames it into place once its result is written;
// *why_failed says why the point failed (ok when it did not).
StatusOr<PointRecord> run_point(const SweepPoint& point, const PointRunner& runner,
                                const fs::path& points_dir, size_t worker, Status* why_failed) {
  const fs::path final_dir = points_dir / point.id;
  const fs::path work_dir = points_dir / fmt::format(".{}.tmp{}-{}", point.id, ::getpid(), worker);
  std::error_code error;
  fs::remove_all(work_dir, error);
  fs::create_directories(work_dir, error);
  if (error) return Status::io_error("cannot create '" + work_dir.string() + "'");
  KVSIM_RETURN_IF_ERROR(write_file_atomic(work_dir / "config.yaml", to_yaml(point.config)));
  PointRecord record = record_for(point);
  PointOutcome outcome;
  try {
    outcome = runner(point, work_dir);
  } catch (const std::exception& failure) {  // e.g. out of memory: record it, go on
    outcome.status = Status::invalid_argument(std::string("point failed: ") + failure.what());
  }
  record.ok = outcome.status.is_ok();
  record.error = outcome.status.message();
  record.binding = outcome.binding;
  *why_failed = outcome.status;
  for (const auto& [key, value] : outcome.metrics) {
    if (std::isfinite(value)) record.metrics[key] = value;  // JSON has no NaN; absent = unknown
  }
  KVSIM_RETURN_IF_ERROR(write_file_atomic(work_dir / "result.json", point_record_json(record)));
  fs::remove_all(final_dir, error);
  fs::rename(work_dir, final_dir, error);
  if (error) return Status::io_error("cannot move '" + work_dir.string() + "' into place");
  return record;
}

// Removes temporary folders and files left by a killed run.
void remove_leftovers(const fs::path& points_dir) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(points_dir, error)) {
    if (entry.path().filename().string().starts_with(".")) fs::remove_all(entry.path(), error);
  }
}

class SweepState {
 public:
  SweepState(const SweepSpec& spec, const SweepRunOptions& options, size_t total)
      : spec_(spec), options_(options), start_(Clock::now()) {
    progress_.total = total;
  }

  void add_skipped(PointRecord record) {
    ++progress_.skipped;
    ++progress_.done;
    records_.push_back(std::move(record));
  }

  // Records a finished point; rewrites summary.csv at most once per interval.
  Status add_finished(PointRecord record, const Status& failure) {
    std::lock_guard lock(mutex_);
    ++ran_;
    ++progress_.done;
    if (!record.ok) ++progress_.failed;
    if (!failure.is_ok() && (first_failure_.is_ok() || record.index < first_failure_index_)) {
      first_failure_ = failure;
      first_failure_index_ = record.index;
    }
    records_.push_back(std::move(record));
    progress_.elapsed_s = seconds_since(start_);
    const size_t remaining = progress_.total - progress_.done;
    // Wall time per finished point already reflects the parallelism.
    progress_.eta_s =
        progress_.elapsed_s / static_cast<double>(ran_) * static_cast<double>(remaining);
    if (options_.on_progress) options_.on_progress(progress_);
    if (seconds_since(last_summary_) < kSummaryRewriteInterval_s) return Status::ok();
    last_summary_ = Clock::now();
    return write_summary_locked();
  }

  Status write_summary() {
    std::lock_guard lock(mutex_);
    return write_summary_locked();
  }

  void set_error(const Status& status) {
    std::lock_guard lock(mutex_);
    if (first_error_.is_ok()) first_error_ = status;
  }
  Status first_error() const { return first_error_; }
  SweepRunResult result() const {
    return {ran_, progress_.failed, progress_.skipped, first_failure_};
  }
  void report_start() const {
    if (options_.on_progress) options_.on_progress(progress_);
  }

 private:
  static double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }

  Status write_summary_locked() {
    std::vector<PointRecord> sorted = records_;
    std::sort(sorted.begin(), sorted.end(),
              [](const PointRecord& a, const PointRecord& b) { return a.index < b.index; });
    return write_file_atomic(options_.out_dir / "summary.csv", summary_csv(spec_.keys, sorted));
  }

  const SweepSpec& spec_;
  const SweepRunOptions& options_;
  std::mutex mutex_;
  std::vector<PointRecord> records_;
  SweepProgress progress_;
  size_t ran_ = 0;
  Clock::time_point start_;
  Clock::time_point last_summary_;
  Status first_error_;
  Status first_failure_;  // of the failed point with the lowest index (SweepRunResult)
  size_t first_failure_index_ = 0;
};

Status write_manifest(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                      const SweepRunOptions& options) {
  SweepManifest manifest;
  manifest.source = spec.source;
  manifest.kind = std::string(sweep_kind_name(spec.kind));
  manifest.keys = spec.keys;
  manifest.shard_index = options.shard_index;
  manifest.shard_count = options.shard_count;
  for (const SweepPoint& point : points) manifest.points.push_back(record_for(point));
  return write_file_atomic(options.out_dir / "sweep.json", manifest_json(manifest));
}

// Points of this shard to run, after moving resumed results into `state`.
StatusOr<std::vector<SweepPoint>> points_to_run(const std::vector<SweepPoint>& mine,
                                                const SweepRunOptions& options, SweepState* state) {
  if (!options.resume) return mine;
  KVSIM_ASSIGN_OR_RETURN(std::vector<PointRecord> existing, read_point_records(options.out_dir));
  std::unordered_map<std::string, PointRecord> by_id;
  for (PointRecord& record : existing) by_id.emplace(record.id, std::move(record));
  std::vector<SweepPoint> to_run;
  for (const SweepPoint& point : mine) {
    auto found = by_id.find(point.id);
    if (found == by_id.end()) {
      to_run.push_back(point);
      continue;
    }
    PointRecord record = std::move(found->second);
    record.index = point.index;
    state->add_skipped(std::move(record));
  }
  return to_run;
}

}  // namespace

StatusOr<SweepRunResult> run_sweep(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                   const PointRunner& runner, const SweepRunOptions& options) {
  if (options.shard_count == 0 || options.shard_index >= options.shard_count) {
    return Status::invalid_argument("--shard I/N needs 0 <= I < N");
  }
  if (options.jobs == 0) return Status::invalid_argument("--jobs must be >= 1");
  const fs::path points_dir = options.out_dir / "points";
  std::error_code error;
  fs::create_directories(points_dir, error);
  if (error) {
    return Status::io_error(
        fmt::format("cannot create '{}': {}", points_dir.string(), error.message()));
  }
  remove_leftovers(points_dir);
  KVSIM_RETURN_IF_ERROR(write_manifest(spec, points, options));

  const std::vector<SweepPoint> mine =
      select_shard(points, options.shard_index, options.shard_count);
  SweepState state(spec, options, mine.size());
  KVSIM_ASSIGN_OR_RETURN(const std::vector<SweepPoint> to_run,
                         points_to_run(mine, options, &state));
  state.report_start();

  std::atomic<size_t> next{0};
  const auto work = [&](size_t worker) {
    for (size_t i = next++; i < to_run.size(); i = next++) {
      if (options.stop != nullptr && *options.stop) return;
      Status failure;
      auto record = run_point(to_run[i], runner, points_dir, worker, &failure);
      Status added =
          record.is_ok() ? state.add_finished(std::move(record).value(), failure) : record.status();
      if (!added.is_ok()) state.set_error(added);
    }
  };
  const size_t num_threads = std::max<size_t>(1, std::min(options.jobs, to_run.size()));
  std::vector<std::thread> threads;
  for (size_t worker = 1; worker < num_threads; ++worker) threads.emplace_back(work, worker);
  work(0);
  for (std::thread& thread : threads) thread.join();
  KVSIM_RETURN_IF_ERROR(state.first_error());
  KVSIM_RETURN_IF_ERROR(state.write_summary());
  const SweepRunResult done = state.result();
  if (options.stop != nullptr && *options.stop && done.ran < to_run.size()) {
    return Status::cancelled(
        fmt::format("sweep stopped after {} of {} points", done.ran, to_run.size()));
  }
  return done;
}

}  // namespace kvsim::sim
