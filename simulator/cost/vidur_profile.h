// Vidur's profile files (github.com/microsoft/vidur, data/profiling/; MIT), read into grids.
//
// A profile folder holds
//   compute/<device>/<org>/<model>/mlp.csv        per-operator times of one layer by
//       num_tokens and num_tensor_parallel_workers, with the geometry in columns n_embd,
//       n_head, n_kv_head, n_expanded_embd; ops emb, input_layernorm, attn_pre_proj,
//       attn_rope, attn_post_proj, post_attention_layernorm, mlp_up_proj, mlp_act,
//       mlp_down_proj, add
//   compute/<device>/<org>/<model>/attention*.csv attn_decode by (batch_size, kv_cache_size)
//       and attn_prefill by (prefill_chunk_size, kv_cache_size), rows told apart by is_prefill
//   network/<topology>/all_reduce.csv             all_reduce by size (bytes), num_workers,
//       devices_per_node, rank
// Each time is the column time_stats.<op>.median, milliseconds. A file is found by the
// geometry in its rows, not by its folder's name. Errors name the file (and line) and what
// was expected: a missing column, a cell that is not a number, no row for the TP size.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "simulator/cost/profile_grid.h"

namespace kvsim::sim {

// The columns a row must match (compared as numbers when both are, else as text).
using ProfileFilter = std::vector<std::pair<std::string, std::string>>;

// The rows of `path` matching `filter`: the numbers of `columns` (each row one vector, in the
// order given), at most `max_rows` of them (0 = all). A missing column is an error at path:1,
// a bad number at its line.
StatusOr<std::vector<std::vector<double>>> read_profile_rows(
    const std::string& path, const ProfileFilter& filter, const std::vector<std::string>& columns,
    size_t max_rows = 0);
// The column names of `path`.
StatusOr<std::vector<std::string>> read_profile_header(const std::string& path);

// The model geometry a profile's rows describe.
struct ProfileGeometry {
  uint64_t hidden = 0, heads = 0, kv_heads = 0, ffn = 0;
  std::string describe() const;  // "hidden 8192, 64 heads, 8 KV heads, FFN 28672"
};

// The mlp.csv under <dir>/compute/<device>/*/*/ whose geometry is `geometry` (its path), or an
// error listing the folders searched and the geometries found.
StatusOr<std::string> find_mlp_profile(const std::string& dir, const std::string& device,
                                       const ProfileGeometry& geometry);

// Per-operator grids of one mlp.csv at one TP size (x = num_tokens).
StatusOr<std::map<std::string, ProfileGrid>> read_mlp_profile(const std::string& path, uint32_t tp);

struct AttentionProfile {
  ProfileGrid decode;   // (batch_size, kv_cache_size)
  ProfileGrid prefill;  // (prefill_chunk_size, kv_cache_size)
};
// The attention*.csv beside `mlp_path` holding rows of this geometry and TP size.
StatusOr<AttentionProfile> read_attention_profile(const std::string& mlp_path,
                                                  const ProfileGeometry& geometry, uint32_t tp);

// all_reduce by size (bytes) for `tp` workers on one node, rank 0.
StatusOr<ProfileGrid> read_all_reduce_profile(const std::string& path, uint32_t tp);

}  // namespace kvsim::sim
