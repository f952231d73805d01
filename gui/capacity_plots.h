// Plot controllers of the Capacity view: they move CapacityViewData (gui/capacity_model.h)
// into the two charts and their CSV tables, and compute nothing.
//
//   memory breakdown   one stacked bar per device, GiB (bytes / 2^30), bottom to top:
//                      weights, activation reserve, KV cache (token data), NZ padding, unused
//                      (the plottables in that order, named kMemorySegmentNames)
//   max sequences      one graph per device: max concurrent sequences (y, log) versus
//                      sequence length (x, log); a 0 (not even one sequence fits) is kept in
//                      the graph's data and the CSV but cannot be drawn on a log axis
#pragma once

#include <array>

#include "gui/capacity_model.h"

namespace kvsim::gui {

class PlotPanel;

inline constexpr std::array<const char*, 5> kMemorySegmentNames = {
    "weights", "activation, non-torch, graphs", "KV cache", "NZ padding", "unused"};

// The segment values of one breakdown in kMemorySegmentNames order, bytes.
std::array<uint64_t, 5> memory_segments(const MemoryBreakdown& memory);

void show_memory_breakdown(PlotPanel* panel, const CapacityViewData& data);
void show_max_sequences(PlotPanel* panel, const CapacityViewData& data);

}  // namespace kvsim::gui
