// The block-grid half of the "Cache and layout" teaching view: the scripted
// `kvsim blocks --demo` scenario (core/cache/block_demo.h) as one grid of the pool per
// step. Qt-free.
//
// run_block_demo() returns every step with everything needed to draw it; this model only
// arranges each step per block, for the plot controller:
//
//   state      demo_block_state(): used / cached_free (holds a reusable prefix) / free / null
//              (block 0, never handed out)
//   owners     the live requests whose block table holds the block, by request id
//   marks      what the step's events did to the block: allocated, prefix hit, evicted,
//              copied (copy-on-write source or target), freed
//   free slot  its place in the free queue (0 = the next block reused), or none
//
// The grid puts block b at column b % kBlockGridColumns, row b / kBlockGridColumns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/cache/block_demo.h"

namespace kvsim::gui {

inline constexpr uint32_t kBlockGridColumns = 8;

struct BlockMarks {
  bool allocated = false;  // popped off the free queue for a request this step
  bool hit = false;        // taken from the prefix cache this step
  bool evicted = false;    // its cached prefix was dropped for reuse this step
  bool copied = false;     // copy-on-write source or target this step
  bool freed = false;      // a request released it this step
};

struct BlockCell {
  BlockId id = 0;
  DemoBlockState state = DemoBlockState::kFree;
  uint32_t ref_count = 0;
  std::vector<RequestId> owners;  // ascending request ids
  std::optional<BlockHash> hash;  // while in the prefix cache
  BlockMarks marks;
  std::optional<uint32_t> free_position;  // index in the free queue
};

struct BlockGridStep {
  std::string action;               // DemoStep::action
  std::string note;                 // DemoStep::note
  std::vector<std::string> events;  // cache_event_text() of each event, in order
  std::vector<BlockCell> cells;     // by block id
  std::vector<BlockId> free_queue;  // DemoStep::free_queue, next reused first
  KvCacheStats stats;
};

struct BlockGridData {
  uint32_t num_blocks = 0;
  uint32_t block_size = 0;
  EvictionKind eviction = EvictionKind::kLru;
  std::vector<BlockGridStep> steps;
};

// One step arranged per block.
BlockGridStep block_grid_step(const DemoStep& step);

// The step a single picture should show: the first with both a prefix hit and an eviction,
// else the first with an eviction, else the last.
size_t featured_step(const BlockGridData& data);

// run_block_demo(eviction), every step arranged.
StatusOr<BlockGridData> compute_block_grid(EvictionKind eviction);

}  // namespace kvsim::gui
