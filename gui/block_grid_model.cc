#include "gui/block_grid_model.h"

#include <algorithm>

namespace kvsim::gui {
namespace {

void apply_event(const CacheEvent& event, std::vector<BlockCell>* cells) {
  auto mark = [cells](BlockId block) -> BlockMarks* {
    return block < cells->size() ? &(*cells)[block].marks : nullptr;
  };
  BlockMarks* marks = mark(event.block);
  if (marks == nullptr) return;
  switch (event.kind) {
    case CacheEventKind::kAllocate:
      marks->allocated = true;
      break;
    case CacheEventKind::kHit:
      marks->hit = true;
      break;
    case CacheEventKind::kEvict:
      marks->evicted = true;
      break;
    case CacheEventKind::kFree:
      marks->freed = true;
      break;
    case CacheEventKind::kCopy:
      marks->copied = true;
      if (BlockMarks* target = mark(event.other_block)) target->copied = true;
      break;
    case CacheEventKind::kCache:
    case CacheEventKind::kTrim:
    case CacheEventKind::kSwapOut:
    case CacheEventKind::kSwapIn:
      break;
  }
}

}  // namespace

BlockGridStep block_grid_step(const DemoStep& step) {
  BlockGridStep out;
  out.action = step.action;
  out.note = step.note;
  out.free_queue = step.free_queue;
  out.stats = step.stats;
  for (const CacheEvent& event : step.events) out.events.push_back(cache_event_text(event));
  for (const DemoBlock& block : step.blocks) {
    BlockCell cell;
    cell.id = block.id;
    cell.ref_count = block.ref_count;
    cell.hash = block.hash;
    cell.state = demo_block_state(block);
    out.cells.push_back(std::move(cell));
  }
  for (const DemoRequest& request : step.requests) {
    for (BlockId entry : request.block_table) {
      if (holds_block(entry) && entry < out.cells.size())
        out.cells[entry].owners.push_back(request.id);
    }
  }
  for (BlockCell& cell : out.cells) {
    std::sort(cell.owners.begin(), cell.owners.end());
    cell.owners.erase(std::unique(cell.owners.begin(), cell.owners.end()), cell.owners.end());
  }
  for (size_t i = 0; i < step.free_queue.size(); ++i) {
    if (step.free_queue[i] < out.cells.size()) {
      out.cells[step.free_queue[i]].free_position = static_cast<uint32_t>(i);
    }
  }
  for (const CacheEvent& event : step.events) apply_event(event, &out.cells);
  return out;
}

size_t featured_step(const BlockGridData& data) {
  std::optional<size_t> first_eviction;
  for (size_t i = 0; i < data.steps.size(); ++i) {
    bool hit = false;
    bool evicted = false;
    for (const BlockCell& cell : data.steps[i].cells) {
      hit = hit || cell.marks.hit;
      evicted = evicted || cell.marks.evicted;
    }
    if (hit && evicted) return i;
    if (evicted && !first_eviction) first_eviction = i;
  }
  if (first_eviction) return *first_eviction;
  return data.steps.empty() ? 0 : data.steps.size() - 1;
}

StatusOr<BlockGridData> compute_block_grid(EvictionKind eviction) {
  KVSIM_ASSIGN_OR_RETURN(BlockDemo demo, run_block_demo(eviction));
  BlockGridData out;
  out.num_blocks = demo.num_blocks;
  out.block_size = demo.block_size;
  out.eviction = demo.eviction;
  for (const DemoStep& step : demo.steps) out.steps.push_back(block_grid_step(step));
  return out;
}

}  // namespace kvsim::gui
