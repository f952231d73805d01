// Runs the points of a sweep: in parallel, crash-safe, resumable and shardable.
//
// Output folder layout (DIR):
//   DIR/sweep.json             the whole sweep: source, kind, keys, every point's index/id/name,
//                              and which shard this folder holds ("I/N")
//   DIR/points/<id>/           one folder per finished point: result.json (status, error,
//                              values, flattened metrics), config.yaml (resolved configuration)
//                              and whatever the point runner wrote
//   DIR/summary.csv            one row per finished point of this folder, in expansion order:
//                              point_id, point_name, status, error, each grid/zip key, then the
//                              union of metric keys in sorted order
// A point runs in a temporary folder that is renamed to points/<id>/ only once its
// result.json is written, and every file is written to a temporary name and renamed; so a
// sweep killed at any moment loses nothing that had finished, and --resume skips exactly the
// points whose result.json exists (same id = same resolved configuration). Two runs must not
// share one DIR at the same time; shards write to folders of their own (see sweep_merge.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "simulator/sweep/sweep_spec.h"

namespace kvsim::sim {

// Flattened metrics of one point ("ttft_s.p99" -> 0.42), ordered for determinism.
using FlatMetrics = std::map<std::string, double>;

struct PointOutcome {
  Status status;             // ok, or why the point failed (recorded; the sweep goes on)
  FlatMetrics metrics;       // empty on failure
  std::string binding = {};  // what limits the point (an SLO search's binding limit); "" else
};

// Runs one point, writing its files into `point_dir` (already created). Called from several
// threads at once with different points, so it must not share mutable state.
using PointRunner =
    std::function<PointOutcome(const SweepPoint& point, const std::filesystem::path& point_dir)>;

struct SweepProgress {
  size_t done = 0;   // points finished in this run (ok or failed) plus skipped ones
  size_t total = 0;  // points of this shard
  size_t failed = 0;
  size_t skipped = 0;  // resumed: results already present
  double elapsed_s = 0;
  double eta_s = 0;  // estimate from the mean time of the points run so far
};

struct SweepRunOptions {
  std::filesystem::path out_dir;
  size_t jobs = 1;         // worker threads
  size_t shard_index = 0;  // run shard shard_index of shard_count
  size_t shard_count = 1;
  bool resume = false;                                    // skip points whose results exist
  std::function<void(const SweepProgress&)> on_progress;  // called under a lock
  // Set: no point starts any more; the points running finish and are recorded, summary.csv
  // lists the finished ones, and run_sweep returns a cancelled Status (--resume runs the
  // rest). Null: never.
  const std::atomic<bool>* stop = nullptr;
};

struct SweepRunResult {
  size_t ran = 0;
  size_t failed = 0;
  size_t skipped = 0;
  // Why the failed point with the lowest index run here failed, with its code (ok when none
  // failed): `kvsim sweep` exits 2 when every point failed on bad input, 1 otherwise.
  Status first_failure;
};

// Runs this shard's points of `points` (the whole expanded sweep). A failing point is recorded
// with its message and the others go on; only I/O failures of the output folder and
// options.stop stop the run.
StatusOr<SweepRunResult> run_sweep(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                   const PointRunner& runner, const SweepRunOptions& options);

}  // namespace kvsim::sim
