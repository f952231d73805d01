#include "gui/sim_plots.h"

#include <qcustomplot.h>

#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "gui/plot_panel.h"
#include "gui/plot_style.h"

namespace kvsim::gui {
namespace {

using Series = std::vector<double>;

QVector<double> qvec(const Series& values) { return QVector<double>(values.begin(), values.end()); }

Series sum(const Series& x, const Series& y) {
  Series out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] + y[i];
  return out;
}

QCPGraph* add_line(QCPAxis* key_axis, QCPAxis* value_axis, const QString& name, const Series& x,
                   const Series& y, const QColor& color, Qt::PenStyle style) {
  QCPGraph* graph = key_axis->parentPlot()->addGraph(key_axis, value_axis);
  graph->setName(name);
  graph->setPen(QPen(color, 1, style));
  graph->setData(qvec(x), qvec(y), true);
  return graph;
}

// Long-format CSV: one row per point, `run` first.
void append_rows(CsvTable* table, const std::string& run, const Series& x,
                 const std::vector<const Series*>& columns) {
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<std::string> row = {run, csv_number(x[i])};
    for (const Series* column : columns) row.push_back(csv_number((*column)[i]));
    table->rows.push_back(std::move(row));
  }
}

void finish(QCustomPlot* plot, const QString& title, const QString& x_label,
            const QString& y_label) {
  set_title(plot, title);
  set_linear_axis(plot->xAxis);
  set_linear_axis(plot->yAxis);
  plot->xAxis->setLabel(x_label);
  plot->yAxis->setLabel(y_label);
  plot->rescaleAxes();
  plot->yAxis->setRangeLower(0);
  plot->yAxis->setRangeUpper(plot->yAxis->range().upper * 1.08 + 1e-9);
  show_legend(plot);
  plot->replot();
}

struct RunRef {
  const SimRun* run;
  QString tag;  // "A" or "B"
  Qt::PenStyle style;
  std::string name() const { return tag.toStdString() + ": " + run->label; }
};

std::vector<RunRef> runs_of(const SimRun& a, const SimRun* b) {
  std::vector<RunRef> out = {{&a, "A", Qt::SolidLine}};
  if (b != nullptr) out.push_back({b, "B", Qt::DashLine});
  return out;
}

// The chart's CSV, built on demand from copies of the runs (the view may drop or reorder its
// runs before anyone exports).
template <typename Build>
void set_lazy_table(PlotPanel* panel, const SimRun& a, const SimRun* b, Build build) {
  auto copies = std::make_shared<std::pair<SimRun, std::optional<SimRun>>>(
      a, b != nullptr ? std::optional<SimRun>(*b) : std::nullopt);
  panel->set_table([copies, build] {
    return build(copies->first, copies->second ? &*copies->second : nullptr);
  });
}

// A long-format table of series columns (time_s first) of each run, built on demand; the
// columns are named as RunSeries::column knows them (timeseries.csv's names).
void set_series_table(PlotPanel* panel, const SimRun& a, const SimRun* b,
                      std::vector<std::string_view> columns) {
  set_lazy_table(panel, a, b, [columns](const SimRun& x, const SimRun* y) {
    CsvTable table;
    table.header = {"run", "time_s"};
    for (std::string_view column : columns) table.header.emplace_back(column);
    for (const RunRef& r : runs_of(x, y)) {
      std::vector<const Series*> values;
      for (std::string_view column : columns) values.push_back(&r.run->series.column(column));
      append_rows(&table, r.name(), r.run->series.time_s(), values);
    }
    return table;
  });
}

QCPGraph* add_cdf(QCPAxisRect* rect, const RunRef& r, const Series& sorted, const QColor& color) {
  QCPGraph* graph = add_line(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft),
                             r.tag + " " + QString::fromStdString(r.run->label).section(':', 0, 0),
                             sorted, empirical_cdf(sorted.size()), color, r.style);
  graph->setLineStyle(QCPGraph::lsStepLeft);
  return graph;
}

}  // namespace

void show_kv_blocks(PlotPanel* panel, const SimRun& a, const SimRun* b) {
  QCustomPlot* plot = panel->plot();
  clear_plot(plot);
  const RunSeries& s = a.series;
  const Series& time_s = s.time_s();
  const Series& kv_blocks_used = s.column("kv_blocks_used");
  const Series used_cached = sum(kv_blocks_used, s.column("kv_blocks_cached_free"));
  QCPGraph* used = add_line(plot->xAxis, plot->yAxis, "A used", time_s, kv_blocks_used,
                            QColor(0, 114, 178), Qt::SolidLine);
  used->setBrush(QColor(0, 114, 178, 150));
  QCPGraph* cached = add_line(plot->xAxis, plot->yAxis, "A used + cached free", time_s, used_cached,
                              QColor(0, 158, 115), Qt::SolidLine);
  cached->setBrush(QColor(0, 158, 115, 120));
  cached->setChannelFillGraph(used);
  QCPGraph* pool =
      add_line(plot->xAxis, plot->yAxis, "A pool (+ free)", time_s,
               sum(used_cached, s.column("kv_blocks_free")), QColor(150, 150, 150), Qt::SolidLine);
  pool->setBrush(QColor(220, 220, 220, 120));
  pool->setChannelFillGraph(cached);
  // Antialiased fills of ten thousand points take tens of milliseconds of the GUI thread.
  for (QCPGraph* graph : {used, cached, pool}) graph->setAntialiasedFill(false);
  if (b != nullptr) {
    const RunSeries& t = b->series;
    add_line(plot->xAxis, plot->yAxis, "B used", t.time_s(), t.column("kv_blocks_used"), Qt::black,
             Qt::DashLine);
    add_line(plot->xAxis, plot->yAxis, "B used + cached free", t.time_s(),
             sum(t.column("kv_blocks_used"), t.column("kv_blocks_cached_free")), QColor(0, 100, 60),
             Qt::DashLine);
  }
  finish(plot, "KV cache blocks over time", "simulated time (s)", "KV blocks");
  set_series_table(panel, a, b, {"kv_blocks_used", "kv_blocks_cached_free", "kv_blocks_free"});
}

void show_requests(PlotPanel* panel, const SimRun& a, const SimRun* b) {
  QCustomPlot* plot = panel->plot();
  clear_plot(plot);
  for (const RunRef& r : runs_of(a, b)) {
    const RunSeries& s = r.run->series;
    for (const auto& [name, color] :
         {std::pair{"running", 0}, std::pair{"waiting", 1}, std::pair{"swapped", 3}}) {
      add_line(plot->xAxis, plot->yAxis, r.tag + " " + name, s.time_s(), s.column(name),
               series_color(color), r.style);
    }
  }
  finish(plot, "Requests running, waiting and swapped", "simulated time (s)", "requests");
  set_series_table(panel, a, b, {"running", "waiting", "swapped"});
}

void show_throughput(PlotPanel* panel, const SimRun& a, const SimRun* b) {
  QCustomPlot* plot = panel->plot();
  clear_plot(plot);
  for (const RunRef& r : runs_of(a, b)) {
    const RunSeries& s = r.run->series;
    add_line(plot->xAxis, plot->yAxis, r.tag + " output tokens/s", s.time_s(),
             s.output_tokens_per_s, r.tag == "A" ? series_color(0) : Qt::black, r.style);
  }
  add_line(plot->xAxis, plot->yAxis, "A tokens/s computed (prefill + decode)", a.series.time_s(),
           a.series.column("tokens_per_s"), series_color(1), Qt::DotLine);
  finish(plot, "Throughput over time", "simulated time (s)", "tokens per second");
  set_series_table(panel, a, b, {"output_tokens_per_s", "tokens_per_s"});
}

void show_latency(PlotPanel* panel, const SimRun& a, const SimRun* b) {
  QCustomPlot* plot = panel->plot();
  clear_plot(plot);
  QCPAxisRect* left = plot->axisRect(0);
  if (plot->axisRectCount() < 2) plot->plotLayout()->addElement(0, 1, new QCPAxisRect(plot));
  QCPAxisRect* right = plot->axisRect(1);
  for (const RunRef& r : runs_of(a, b)) {
    const QColor color = r.tag == "A" ? series_color(0) : Qt::black;
    add_cdf(left, r, r.run->ttft_s, color);
    add_cdf(right, r, r.run->tpot_s, color)->removeFromLegend();  // one entry per run
  }
  for (auto [rect, label] : {std::pair{left, "TTFT (s)"}, std::pair{right, "TPOT (s)"}}) {
    rect->axis(QCPAxis::atBottom)->setLabel(label);
    rect->axis(QCPAxis::atLeft)->setLabel("share of finished requests");
    rect->axis(QCPAxis::atLeft)->setRange(0, 1.02);
    QCPRange keys(0, 0);
    for (QCPGraph* graph : rect->graphs()) {
      bool found = false;
      const QCPRange range = graph->getKeyRange(found);
      if (found) keys.upper = std::max(keys.upper, range.upper);
    }
    rect->axis(QCPAxis::atBottom)->setRange(0, keys.upper * 1.05 + 1e-9);
  }
  set_title(plot, "TTFT and TPOT: share of finished requests within a latency");
  show_legend(plot, Qt::AlignBottom | Qt::AlignRight);
  plot->replot();
  set_lazy_table(panel, a, b, [](const SimRun& x, const SimRun* y) {
    CsvTable table;
    table.header = {"run", "latency_s", "fraction", "metric"};
    for (const RunRef& r : runs_of(x, y)) {
      for (const auto& [values, metric] :
           {std::pair{&r.run->ttft_s, "ttft"}, std::pair{&r.run->tpot_s, "tpot"}}) {
        const Series fractions = empirical_cdf(values->size());
        for (size_t i = 0; i < values->size(); ++i) {
          table.rows.push_back(
              {r.name(), csv_number((*values)[i]), csv_number(fractions[i]), metric});
        }
      }
    }
    return table;
  });
}

}  // namespace kvsim::gui
