#include "gui/layout_plots.h"

#include <qcustomplot.h>

#include <functional>

#include "gui/plot_panel.h"
#include "gui/plot_style.h"

namespace kvsim::gui {
namespace {

constexpr double kLastKind = static_cast<double>(CellKind::kPicked);

QCPColorGradient cell_gradient() {
  QCPColorGradient gradient;
  gradient.clearColorStops();
  gradient.setColorStopAt(0.00, QColor(158, 202, 225));  // even head
  gradient.setColorStopAt(0.25, QColor(49, 130, 189));   // odd head
  gradient.setColorStopAt(0.50, QColor(239, 101, 72));   // padding
  gradient.setColorStopAt(0.75, QColor(255, 255, 255));  // gap
  gradient.setColorStopAt(1.00, QColor(255, 215, 0));    // picked
  gradient.setLevelCount(5);
  return gradient;
}

using OffsetFn = std::function<std::optional<uint64_t>(GridCell)>;

CsvTable grid_table(const CellGrid& grid, const OffsetFn& offset) {
  CsvTable table;
  table.header = {"column", "row", "kind", "offset"};
  for (uint32_t row = 0; row < grid.height; ++row) {
    for (uint32_t column = 0; column < grid.width; ++column) {
      const auto at = offset({column, row});
      table.rows.push_back({csv_number(uint64_t{column}), csv_number(uint64_t{row}),
                            std::string(cell_kind_name(grid.at(column, row))),
                            at ? csv_number(*at) : std::string()});
    }
  }
  return table;
}

// Frames the picked cell and draws dashed cross-hairs through it, so that it stays visible
// when a cell is narrower than a pixel; the frame grows with the grid.
void frame_cell(QCustomPlot* plot, const CellGrid& grid, GridCell cell, const QString& text) {
  const double margin_x = 0.5 + grid.width / 150.0;
  const double margin_y = 0.5 + grid.height / 40.0;
  const QPen cross_pen(QColor(0, 0, 0, 150), 1, Qt::DashLine);
  auto* vertical = new QCPItemStraightLine(plot);
  vertical->point1->setCoords(cell.column, 0);
  vertical->point2->setCoords(cell.column, 1);
  vertical->setPen(cross_pen);
  auto* horizontal = new QCPItemStraightLine(plot);
  horizontal->point1->setCoords(0, cell.row);
  horizontal->point2->setCoords(1, cell.row);
  horizontal->setPen(cross_pen);
  auto* frame = new QCPItemRect(plot);
  frame->setPen(QPen(Qt::black, 2.5));
  frame->topLeft->setCoords(cell.column - margin_x, cell.row - margin_y);
  frame->bottomRight->setCoords(cell.column + margin_x, cell.row + margin_y);
  auto* label = new QCPItemText(plot);
  label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  label->position->setType(QCPItemPosition::ptAxisRectRatio);
  label->position->setCoords(0.01, -0.01);
  label->setClipToAxisRect(false);
  label->setText(text);
}

// The memory order through the picked element's fractal (its first `in_fractal` cells of
// `path`): a thin line from cell to cell as the bytes follow each other, ending in an arrow to
// the next fractal (the path's last cell, when it has one more).
void draw_memory_path(QCustomPlot* plot, const std::vector<GridCell>& path, size_t in_fractal) {
  if (path.empty() || in_fractal == 0 || in_fractal > path.size()) return;
  auto* curve = new QCPCurve(plot->xAxis, plot->yAxis);
  curve->setName("memory order");
  const QColor ink(170, 0, 0);
  curve->setPen(QPen(ink, 1.2));
  curve->removeFromLegend();
  for (size_t i = 0; i < in_fractal; ++i) curve->addData(path[i].column, path[i].row);
  if (in_fractal < path.size()) {
    auto* next = new QCPItemLine(plot);
    next->start->setCoords(path[in_fractal - 1].column, path[in_fractal - 1].row);
    next->end->setCoords(path.back().column, path.back().row);
    next->setPen(QPen(ink, 1.5));
    next->setHead(QCPLineEnding::esSpikeArrow);
  }
}

void show_grid(PlotPanel* panel, const CellGrid& grid, GridCell picked, const QString& picked_text,
               const QString& x_label, const OffsetFn& offset) {
  QCustomPlot* plot = panel->plot();
  clear_plot(plot);
  auto* map = new QCPColorMap(plot->xAxis, plot->yAxis);
  map->setInterpolate(false);
  map->setTightBoundary(true);
  map->data()->setSize(static_cast<int>(grid.width), static_cast<int>(grid.height));
  map->data()->setRange(QCPRange(0, std::max(1.0, grid.width - 1.0)),
                        QCPRange(0, std::max(1.0, grid.height - 1.0)));
  for (uint32_t row = 0; row < grid.height; ++row) {
    for (uint32_t column = 0; column < grid.width; ++column) {
      map->data()->setCell(static_cast<int>(column), static_cast<int>(row),
                           static_cast<double>(grid.at(column, row)));
    }
  }
  map->setGradient(cell_gradient());
  map->setDataRange(QCPRange(0, kLastKind));
  frame_cell(plot, grid, picked, picked_text);
  set_integer_axis(plot->xAxis);
  set_integer_axis(plot->yAxis);
  plot->xAxis->setLabel(x_label);
  plot->yAxis->setLabel("slot (row)");
  plot->yAxis->setRangeReversed(true);
  plot->xAxis->setRange(-0.5, grid.width - 0.5);
  plot->yAxis->setRange(-0.5, grid.height - 0.5);
  plot->replot();
  panel->set_table([grid, offset] { return grid_table(grid, offset); });
}

}  // namespace

void show_nd_block(PlotPanel* panel, const LayoutViewData& data) {
  const BlockLayout layout = data.layout;
  show_grid(panel, data.nd, data.nd_picked, QString::fromStdString(nd_pick_text(data)),
            "column = head x head_dim + dim (memory runs along each row)",
            [layout](GridCell cell) { return nd_cell_offset(layout, cell); });
}

void show_nz_block(PlotPanel* panel, const LayoutViewData& data) {
  const BlockLayout layout = data.layout;
  show_grid(panel, data.nz, data.nz_picked, QString::fromStdString(nz_pick_text(data)),
            QString("fractals of n0 = %1 columns, drawn apart; memory runs row by row through a "
                    "fractal (the line), then on to the next")
                .arg(layout.nz_width),
            [layout](GridCell cell) { return nz_cell_offset(layout, cell); });
  draw_memory_path(panel->plot(), nz_memory_path(data),
                   layout.nz_width * static_cast<size_t>(layout.nz_padded_block()));
  panel->plot()->replot();
}

}  // namespace kvsim::gui
