#include "gui/cost_plots.h"

#include <qcustomplot.h>

#include <map>

#include "gui/plot_panel.h"
#include "gui/plot_style.h"

namespace kvsim::gui {
namespace {

// Operators in the order they first appear (the cost model's execution order).
std::vector<std::string> operator_names(const std::vector<sim::ExplainedBatch>& batches) {
  std::vector<std::string> names;
  for (const sim::ExplainedBatch& b : batches) {
    for (const sim::OperatorTime& op : b.cost.operators) {
      if (std::find(names.begin(), names.end(), op.name) == names.end()) names.push_back(op.name);
    }
  }
  return names;
}

CsvTable cost_table(const std::vector<sim::ExplainedBatch>& batches) {
  CsvTable table;
  table.header = {"batch", "operator", "count", "time_ms", "share", "bound"};
  for (const sim::ExplainedBatch& b : batches) {
    for (const sim::OperatorTime& op : b.cost.operators) {
      table.rows.push_back({b.spec, op.name, csv_number(op.count), csv_number(op.time_s * 1e3),
                            csv_number(b.cost.total_s > 0 ? op.time_s / b.cost.total_s : 0.0),
                            op.bound});
    }
  }
  return table;
}

}  // namespace

void show_cost(PlotPanel* panel, const SimRun& run) {
  QCustomPlot* plot = panel->plot();
  clear_plot(plot);
  const std::vector<sim::ExplainedBatch>& batches = run.cost_bars;
  const std::vector<std::string> names = operator_names(batches);
  QVector<QString> labels;
  QVector<double> keys;
  for (size_t i = 0; i < batches.size(); ++i) {
    labels.push_back(QString::fromStdString(batches[i].spec).replace(",", "\n"));
    keys.push_back(static_cast<double>(i));
  }
  QCPBars* below = nullptr;
  for (size_t k = 0; k < names.size(); ++k) {
    QVector<double> values(keys.size(), 0.0);
    for (size_t i = 0; i < batches.size(); ++i) {
      for (const sim::OperatorTime& op : batches[i].cost.operators) {
        if (op.name == names[k]) values[static_cast<int>(i)] += op.time_s * 1e3;
      }
    }
    auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setName(QString::fromStdString(names[k]));
    const QColor color = distinct_color(static_cast<int>(k), static_cast<int>(names.size()));
    bars->setPen(QPen(color.darker(130)));
    bars->setBrush(color);
    bars->setWidth(0.6);
    bars->setData(keys, values, true);
    if (below != nullptr) bars->moveAbove(below);
    below = bars;
  }
  set_text_ticks(plot->xAxis, labels);
  plot->xAxis->setRange(-0.6, static_cast<double>(batches.size()) - 0.4 + 0.9);
  plot->yAxis->setLabel("iteration time (ms), stacked by operator");
  double top = 0;
  for (const sim::ExplainedBatch& b : batches) top = std::max(top, b.cost.total_s * 1e3);
  plot->yAxis->setRange(0, top * 1.1 + 1e-9);
  set_title(plot, "Iteration time of typical batches, stacked by operator");
  show_legend(plot);
  plot->replot();
  panel->set_table([batches] { return cost_table(batches); });
}

}  // namespace kvsim::gui
