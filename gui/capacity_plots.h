// Plot controllers of the Capacity view: they move CapacityViewData (gui/capacity_model.h)
// into the two charts and their CSV tables, and compute nothing.
//
//   memory breakdown   one stacked bar per device, GiB (bytes / 2^30), bottom to top:
//                      weights, then each kind of the engine's other set-aside terms
//                      (activation peak, non-torch, CUDA graphs, a measured set-aside), KV
//                      cache (token data), NZ padding, unused; a segment that is empty on
//                      every device keeps its plottable but leaves the legend
//                      (the plottables in that order, named kMemorySegmentNames)
//   max sequences      one graph per device: max concurrent sequences (y, log) versus
//                      sequence length (x, log); a 0 (not even one sequence fits) is kept in
//                      the graph's data and the CSV but cannot be drawn on a log axis
#pragma once

#include <array>

#include "gui/capacity_model.h"

namespace kvsim::gui {

class PlotPanel;

// Short enough for three legend columns over the bars.
inline constexpr std::array<const char*, 9> kMemorySegmentNames = {
    "weights",  "activation", "non-torch",      "CUDA graphs", "measured set-aside",
    "KV cache", "NZ padding", "driver reserve", "unused"};

// The segment values of one breakdown in kMemorySegmentNames order, bytes.
std::array<uint64_t, 9> memory_segments(const MemoryBreakdown& memory);

void show_memory_breakdown(PlotPanel* panel, const CapacityViewData& data);
void show_max_sequences(PlotPanel* panel, const CapacityViewData& data);

}  // namespace kvsim::gui
