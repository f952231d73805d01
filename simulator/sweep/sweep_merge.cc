#include "simulator/sweep/sweep_merge.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "simulator/io/atomic_file.h"
#include "simulator/sweep/sweep_results.h"

namespace kvsim::sim {
namespace {

namespace fs = std::filesystem;

StatusOr<SweepManifest> read_manifest(const fs::path& dir) {
  KVSIM_ASSIGN_OR_RETURN(std::string text, read_file(dir / "sweep.json"));
  return parse_manifest(text, (dir / "sweep.json").string());
}

bool same_points(const SweepManifest& a, const SweepManifest& b) {
  if (a.points.size() != b.points.size() || a.keys != b.keys) return false;
  for (size_t i = 0; i < a.points.size(); ++i) {
    if (a.points[i].id != b.points[i].id) return false;
  }
  return true;
}

Status copy_point_folders(const fs::path& input, const fs::path& out_dir) {
  std::error_code error;
  if (fs::equivalent(input, out_dir, error)) return Status::ok();
  fs::create_directories(out_dir / "points", error);
  for (const auto& entry : fs::directory_iterator(input / "points", error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".")) continue;
    fs::remove_all(out_dir / "points" / name, error);
    fs::copy(entry.path(), out_dir / "points" / name, fs::copy_options::recursive, error);
    if (error) return Status::io_error("cannot copy '" + entry.path().string() + "'");
  }
  return Status::ok();
}

}  // namespace

StatusOr<MergeResult> merge_sweeps(const std::vector<fs::path>& inputs, const fs::path& out_dir) {
  if (inputs.empty()) return Status::invalid_argument("sweep merge needs at least one folder");
  KVSIM_ASSIGN_OR_RETURN(SweepManifest manifest, read_manifest(inputs.front()));
  std::set<std::string> sweep_ids;
  for (const PointRecord& point : manifest.points) sweep_ids.insert(point.id);
  std::map<std::string, std::pair<PointRecord, fs::path>> found;
  for (const fs::path& input : inputs) {
    KVSIM_ASSIGN_OR_RETURN(SweepManifest other, read_manifest(input));
    if (!same_points(manifest, other)) {
      return Status::invalid_argument(fmt::format("'{}' holds a different sweep than '{}'",
                                                  input.string(), inputs.front().string()));
    }
    KVSIM_ASSIGN_OR_RETURN(std::vector<PointRecord> records, read_point_records(input));
    for (PointRecord& record : records) {
      if (sweep_ids.count(record.id) == 0) continue;  // stale: an earlier version of the sweep
      auto [it, inserted] = found.try_emplace(record.id, record, input);
      if (!inserted) {
        return Status::invalid_argument(fmt::format("point {} ({}) is in both '{}' and '{}'",
                                                    record.id, record.name,
                                                    it->second.second.string(), input.string()));
      }
    }
  }
  std::vector<PointRecord> merged;
  std::string missing;
  for (const PointRecord& point : manifest.points) {
    auto it = found.find(point.id);
    if (it == found.end()) {
      missing += (missing.empty() ? "" : ", ") + point.id + " (" + point.name + ")";
      continue;
    }
    merged.push_back(it->second.first);
    merged.back().index = point.index;
  }
  if (!missing.empty())
    return Status::invalid_argument("points missing from every folder: " + missing);
  for (const fs::path& input : inputs) KVSIM_RETURN_IF_ERROR(copy_point_folders(input, out_dir));
  manifest.shard_index = 0;
  manifest.shard_count = 1;
  KVSIM_RETURN_IF_ERROR(write_file_atomic(out_dir / "sweep.json", manifest_json(manifest)));
  KVSIM_RETURN_IF_ERROR(
      write_file_atomic(out_dir / "summary.csv", summary_csv(manifest.keys, merged)));
  MergeResult result;
  result.num_points = merged.size();
  for (const PointRecord& record : merged) result.num_failed += record.ok ? 0 : 1;
  return result;
}

}  // namespace kvsim::sim
