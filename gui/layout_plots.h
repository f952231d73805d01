// Plot controllers of the ND/NZ half of the "Cache and layout" view: they move the cell grids
// of LayoutViewData (gui/layout_model.h) into colour maps and their CSV tables.
//
// Each chart is one QCPColorMap, one cell per grid cell, its value the CellKind (0..4), row 0
// drawn on top; the picked cell is also framed by a rectangle so that it stays visible when
// the block has thousands of columns. The CSV lists every cell: column, row, kind and the
// element offset in the block's memory (empty for NZ gap columns).
#pragma once

#include "gui/layout_model.h"

namespace kvsim::gui {

class PlotPanel;

void show_nd_block(PlotPanel* panel, const LayoutViewData& data);
void show_nz_block(PlotPanel* panel, const LayoutViewData& data);

}  // namespace kvsim::gui
