#include "gui/ppl_plots.h"

#include <qcustomplot.h>

#include <algorithm>

#include "gui/plot_panel.h"
#include "gui/plot_style.h"

namespace kvsim::gui {
namespace {

CsvTable report_table(const kernels::PerplexityReport& report) {
  CsvTable table;
  table.header = {"policy", "budget_tokens",  "ppl",     "delta_ppl",
                  "kl",     "top1_agreement", "kv_bytes"};
  for (const kernels::PolicyResult& r : report.results) {
    table.rows.push_back({r.policy, r.budget_tokens ? csv_number(*r.budget_tokens) : "",
                          csv_number(r.ppl), csv_number(r.delta_ppl), csv_number(r.kl),
                          csv_number(r.top1_agreement), csv_number(r.kv_bytes)});
  }
  return table;
}

QCPGraph* add_graph(QCustomPlot* plot, QCPAxis* value_axis, const QString& name,
                    const QVector<double>& x, const QVector<double>& y, const QPen& pen) {
  QCPGraph* graph = plot->addGraph(plot->xAxis, value_axis);
  graph->setName(name);
  graph->setPen(pen);
  graph->setData(x, y);
  return graph;
}

QVector<double> to_doubles(const std::vector<uint64_t>& values) {
  QVector<double> out;
  for (uint64_t v : values) out.push_back(static_cast<double>(v));
  return out;
}

}  // namespace

void show_ppl(PlotPanel* panel, const PplStudy& study) {
  QCustomPlot* plot = panel->plot();
  clear_plot(plot);
  std::vector<uint64_t> budgets = study.input.budgets;
  for (const PplCurve& curve : study.curves) {
    budgets.insert(budgets.end(), curve.budgets.begin(), curve.budgets.end());
  }
  const double low = budgets.empty()
                         ? 1.0
                         : static_cast<double>(*std::min_element(budgets.begin(), budgets.end()));
  const double high = budgets.empty()
                          ? 2.0
                          : static_cast<double>(*std::max_element(budgets.begin(), budgets.end()));
  const QVector<double> span = {low, high};
  add_graph(plot, plot->yAxis, "full (baseline)", span, {study.full_ppl, study.full_ppl},
            QPen(Qt::black, 1.5));
  double max_saved = 1;
  for (size_t i = 0; i < study.curves.size(); ++i) {
    const PplCurve& curve = study.curves[i];
    const QColor color = series_color(static_cast<int>(i));
    const QString spec = QString::fromStdString(curve.spec);
    const QVector<double> ppl(curve.ppl.begin(), curve.ppl.end());
    const QVector<double> saved(curve.kv_bytes_saved.begin(), curve.kv_bytes_saved.end());
    for (double s : curve.kv_bytes_saved) max_saved = std::max(max_saved, s);
    if (curve.evicts) {
      const QVector<double> x = to_doubles(curve.budgets);
      QCPGraph* graph = add_graph(plot, plot->yAxis, spec, x, ppl, QPen(color, 2));
      graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
      add_graph(plot, plot->yAxis2, spec + " KV saved", x, saved, QPen(color, 1, Qt::DashLine))
          ->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle, 5));
    } else {
      add_graph(plot, plot->yAxis, spec + " (level)", span, {ppl[0], ppl[0]},
                QPen(color, 2, Qt::DotLine));
      add_graph(plot, plot->yAxis2, spec + " KV saved", span, {saved[0], saved[0]},
                QPen(color, 1, Qt::DashDotLine));
    }
  }
  set_log_axis(plot->xAxis);
  plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  qSharedPointerCast<QCPAxisTickerLog>(plot->xAxis->ticker())->setLogBase(2);
  plot->xAxis->setLabel("cache budget (tokens per sequence)");
  plot->xAxis->setRange(low / 1.3, high * 1.3);
  set_log_axis(plot->yAxis);
  plot->yAxis->setLabel("perplexity (log)");
  plot->yAxis->rescale();
  plot->yAxis->setRange(plot->yAxis->range().lower / 1.05, plot->yAxis->range().upper * 1.1);
  plot->yAxis2->setVisible(true);
  set_linear_axis(plot->yAxis2);
  plot->yAxis2->setNumberFormat("f");
  plot->yAxis2->setNumberPrecision(0);
  plot->yAxis2->setLabel("KV bytes saved per sequence vs full");
  plot->yAxis2->setRange(0, max_saved * 1.1);
  set_title(plot, "Perplexity and KV bytes saved by cache budget, per policy");
  show_legend(plot);
  plot->replot();
  const kernels::PerplexityReport report = study.report;
  panel->set_table([report] { return report_table(report); });
}

}  // namespace kvsim::gui
