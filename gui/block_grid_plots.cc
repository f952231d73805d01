#include "gui/block_grid_plots.h"

#include <qcustomplot.h>

#include "core/base/checked_math.h"
#include "gui/plot_panel.h"
#include "gui/plot_style.h"

namespace kvsim::gui {
namespace {

const QColor kCachedFill(184, 225, 134);
const QColor kFreeFill(235, 235, 235);
const QColor kNullFill(160, 160, 160);  // block 0, the null block: never handed out
constexpr double kQueueCellWidth = 0.5;

QString owners_text(const BlockCell& cell) {
  QStringList ids;
  for (RequestId id : cell.owners) ids << QString::number(id);
  return ids.join(",");
}

QString marks_text(const BlockMarks& m) {
  QStringList out;
  if (m.hit) out << "HIT";
  if (m.evicted) out << "EVICTED";
  if (m.allocated) out << "new";
  if (m.copied) out << "copy";
  if (m.freed) out << "freed";
  return out.join("\n");
}

QPen block_pen(const BlockMarks& m) {
  if (m.evicted) return QPen(QColor(200, 0, 0), 4, Qt::DashLine);
  if (m.hit) return QPen(QColor(0, 150, 0), 4);
  if (m.allocated || m.copied) return QPen(Qt::black, 2);
  return QPen(QColor(150, 150, 150), 1);
}

void add_rect(QCustomPlot* plot, const QString& name, QPointF top_left, QPointF bottom_right,
              const QBrush& brush, const QPen& pen) {
  auto* rect = new QCPItemRect(plot);
  rect->setObjectName(name);
  rect->topLeft->setCoords(top_left);
  rect->bottomRight->setCoords(bottom_right);
  rect->setBrush(brush);
  rect->setPen(pen);
}

QCPItemText* add_text(QCustomPlot* plot, const QString& name, QPointF at, const QString& text) {
  auto* label = new QCPItemText(plot);
  label->setObjectName(name);
  label->position->setCoords(at);
  label->setText(text);
  label->setPositionAlignment(Qt::AlignCenter);
  return label;
}

void draw_queue(QCustomPlot* plot, const BlockGridStep& step, double y) {
  add_text(plot, "queue_title", QPointF(0.05, y - 0.12), "free queue, next reused first:")
      ->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  for (size_t i = 0; i < step.free_queue.size(); ++i) {
    const BlockId id = step.free_queue[i];
    const double x = static_cast<double>(i) * kQueueCellWidth;
    const BlockCell& cell = step.cells[id];
    add_rect(plot, QString("queue_%1").arg(i), QPointF(x + 0.03, y),
             QPointF(x + kQueueCellWidth - 0.03, y + 0.4), block_fill(cell),
             QPen(QColor(120, 120, 120)));
    add_text(plot, QString("queue_label_%1").arg(i), QPointF(x + kQueueCellWidth / 2, y + 0.2),
             QString::number(id));
  }
}

CsvTable step_table(const BlockGridStep& step, size_t index) {
  CsvTable table;
  table.header = {"step",      "block", "state",   "ref_count", "owners", "hash",
                  "allocated", "hit",   "evicted", "copied",    "freed",  "free_position"};
  for (const BlockCell& c : step.cells) {
    table.rows.push_back(
        {csv_number(uint64_t{index + 1}), csv_number(uint64_t{c.id}),
         std::string(demo_block_state_name(c.state)), csv_number(uint64_t{c.ref_count}),
         owners_text(c).replace(',', ';').toStdString(),
         c.hash ? block_hash_text(*c.hash) : std::string(), c.marks.allocated ? "1" : "0",
         c.marks.hit ? "1" : "0", c.marks.evicted ? "1" : "0", c.marks.copied ? "1" : "0",
         c.marks.freed ? "1" : "0",
         c.free_position ? csv_number(uint64_t{*c.free_position}) : std::string()});
  }
  return table;
}

}  // namespace

QColor block_fill(const BlockCell& cell) {
  switch (cell.state) {
    case DemoBlockState::kUsed:
      return series_color(static_cast<int>(cell.owners.empty() ? 0 : cell.owners.front()))
          .lighter(140);
    case DemoBlockState::kCachedFree:
      return kCachedFill;
    case DemoBlockState::kFree:
      return kFreeFill;
    case DemoBlockState::kNull:
      return kNullFill;
  }
  return kFreeFill;
}

QString block_label(const BlockCell& cell) {
  QString text = QString("block %1\nref %2").arg(cell.id).arg(cell.ref_count);
  if (!cell.owners.empty()) text += "\nreq " + owners_text(cell);
  if (cell.state == DemoBlockState::kCachedFree) text += "\ncached";
  if (cell.state == DemoBlockState::kNull) text += "\nnull block";
  const QString marks = marks_text(cell.marks);
  if (!marks.isEmpty()) text += "\n" + marks;
  return text;
}

void show_block_step(PlotPanel* panel, const BlockGridData& data, size_t step_index) {
  const BlockGridStep& step = data.steps.at(step_index);
  QCustomPlot* plot = panel->plot();
  clear_plot(plot);
  const uint32_t columns = kBlockGridColumns;
  const uint32_t rows = ceil_div(data.num_blocks, columns);
  for (const BlockCell& cell : step.cells) {
    const double x = cell.id % columns;
    const double y = cell.id / columns;
    add_rect(plot, QString("block_%1").arg(cell.id), QPointF(x + 0.05, y + 0.05),
             QPointF(x + 0.95, y + 0.95), block_fill(cell), block_pen(cell.marks));
    add_text(plot, QString("label_%1").arg(cell.id), QPointF(x + 0.5, y + 0.5), block_label(cell));
  }
  const double queue_y = rows + 0.55;
  draw_queue(plot, step, queue_y);
  plot->xAxis->setVisible(false);
  plot->yAxis->setVisible(false);
  plot->xAxis->grid()->setVisible(false);
  plot->yAxis->grid()->setVisible(false);
  plot->xAxis->setRange(-0.05, columns + 0.05);
  plot->yAxis->setRangeReversed(true);
  plot->yAxis->setRange(-0.05, queue_y + 0.5);
  plot->replot();
  panel->set_table([step, step_index] { return step_table(step, step_index); });
}

}  // namespace kvsim::gui
