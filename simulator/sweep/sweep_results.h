// The files a sweep leaves behind: a point's result.json, the sweep's sweep.json, and the
// summary.csv built from a set of results. Shared by the runner and the shard merger.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "simulator/sweep/sweep_runner.h"

namespace kvsim::sim {

struct PointRecord {
  size_t index = 0;
  std::string id;
  std::string name;
  bool ok = false;
  std::string error;
  std::string binding;  // PointOutcome::binding; in result.json only when not empty
  std::vector<std::pair<std::string, std::string>> values;  // key -> value text, column order
  FlatMetrics metrics;
};

// The sweep-level description written to DIR/sweep.json.
struct SweepManifest {
  std::string source;
  std::string kind;
  std::vector<std::string> keys;
  std::vector<PointRecord> points;  // index, id, name only
  size_t shard_index = 0;
  size_t shard_count = 1;
};

std::string point_record_json(const PointRecord& record);
StatusOr<PointRecord> parse_point_record(const std::string& json_text, const std::string& where);

std::string manifest_json(const SweepManifest& manifest);
StatusOr<SweepManifest> parse_manifest(const std::string& json_text, const std::string& where);

// summary.csv for `records` (sorted by index by the caller).
std::string summary_csv(const std::vector<std::string>& keys,
                        const std::vector<PointRecord>& records);

// Reads every DIR/points/*/result.json.
StatusOr<std::vector<PointRecord>> read_point_records(const std::filesystem::path& out_dir);

}  // namespace kvsim::sim
