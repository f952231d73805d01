// Joins the output folders of a sharded sweep (`kvsim sweep merge DIR... --out DIR`).
//
// Every input folder must hold the same sweep (identical sweep.json point lists). Each point
// of the sweep must have exactly one result across the inputs: a missing point or a point
// found in two folders is an error that names it. The output gets one summary.csv over all
// points, a sweep.json marked shard 0/1, and a copy of every point folder.
#pragma once

#include <filesystem>
#include <vector>

#include "core/base/status.h"

namespace kvsim::sim {

struct MergeResult {
  size_t num_points = 0;
  size_t num_failed = 0;  // points whose status is error
};

StatusOr<MergeResult> merge_sweeps(const std::vector<std::filesystem::path>& inputs,
                                   const std::filesystem::path& out_dir);

}  // namespace kvsim::sim
