// Plot controller of the block grid: draws one step of BlockGridData (gui/block_grid_model.h)
// as a grid of the pool and the free queue beneath it, and fills the CSV table.
//
// Each block is a rectangle (object name "block_<id>") filled by state: used blocks in their
// first owner's colour, cached-free blocks green, empty free blocks grey; its border marks
// what the step did (prefix hit: thick green; eviction: thick red, dashed; allocation or copy:
// black). Its label (object name "label_<id>") gives the id, ref count, owners and marks.
// The free queue is drawn in order, next reused first (object names "queue_<position>").
#pragma once

#include <QColor>

#include "gui/block_grid_model.h"

namespace kvsim::gui {

class PlotPanel;

// The fill of a block, as the grid draws it.
QColor block_fill(const BlockCell& cell);
// The label text of a block.
QString block_label(const BlockCell& cell);

// Draws data.steps[step] (precondition: step < data.steps.size()).
void show_block_step(PlotPanel* panel, const BlockGridData& data, size_t step);

}  // namespace kvsim::gui
