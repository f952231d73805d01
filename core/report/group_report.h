// Text for layer groups and vLLM's KV cache groups (core/model/kv_groups.h): each group's bytes per
// token (or per sequence) as its formula with the numbers substituted, and the page, block and
// groups of a hybrid plan. `kvsim capacity` and `kvsim layout` print these lines.
#pragma once

#include <string>
#include <vector>

#include "core/model/kv_groups.h"

namespace kvsim {

// One line per layer group: "  sliding_window W=1024, 52 layers: 2 (K and V) x 52 x 16 x 128
// x 2 = 425,984 B per token (the last 1,024 tokens)"; per device too when tp > 1.
std::string layer_group_lines(const std::vector<LayerGroupBytes>& groups, const KvStorage& kv,
                              uint32_t tp);

// The plan: block size, page, layers per group, the groups with their padding, bytes per block.
std::string kv_cache_plan_lines(const KvCachePlan& plan);

// "6 x (cdiv(min(1023 + 8192, 131,072), 16) + 1) + 1 x cdiv(131,072, 16)": the blocks one
// sequence of `seq_len` holds, group by group.
std::string blocks_per_request_formula(const KvCachePlan& plan, uint64_t seq_len,
                                       uint64_t max_num_batched_tokens);

}  // namespace kvsim
