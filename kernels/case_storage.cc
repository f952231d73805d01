#include "kernels/case_storage.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "core/base/checked_math.h"
#include "core/engine/capacity.h"
#include "kernels/simd16.h"

namespace kvsim::kernels {

BlockPlan plan_blocks(const AttentionCase& c) {
  std::vector<uint32_t> counts;
  uint32_t needed = 0;
  for (const CaseSequence& seq : c.sequences) {
    counts.push_back(ceil_div(seq.num_keys, c.block_size));
    needed += counts.back();
  }
  BlockPlan plan;
  plan.num_blocks = needed + needed / 2 + 1;
  std::vector<uint32_t> ids(plan.num_blocks);
  std::iota(ids.begin(), ids.end(), 0u);
  std::mt19937_64 rng(uint64_t{needed} * 7919u + c.block_size);
  std::shuffle(ids.begin(), ids.end(), rng);
  auto next = ids.begin();
  for (uint32_t count : counts) {
    plan.tables.emplace_back(next, next + count);
    next += count;
  }
  return plan;
}

BlockLayout layout_of(const AttentionCase& c) {
  BlockLayout layout =
      block_layout(KvShape{1, 2, c.shape.kv_heads, c.shape.head_dim}, c.block_size, kLanes);
  layout.nz_row_align = c.nz_row_align;
  return layout;
}

}  // namespace kvsim::kernels
