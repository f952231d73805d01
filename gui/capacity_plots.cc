#include "gui/capacity_plots.h"

#include <qcustomplot.h>

#include "core/base/units.h"
#include "gui/plot_panel.h"
#include "gui/plot_style.h"

namespace kvsim::gui {
namespace {

// Okabe-Ito colours, greys for weights, the driver's reserve and unused memory.
const QColor kSegmentColors[] = {
    QColor(110, 110, 110), QColor(230, 159, 0),   QColor(240, 228, 66),
    QColor(204, 121, 167), QColor(86, 180, 233),  QColor(0, 114, 178),
    QColor(213, 94, 0),    QColor(160, 160, 160), QColor(215, 215, 215)};

CsvTable memory_table(const CapacityViewData& data) {
  CsvTable table;
  table.header = {"device",
                  "memory_bytes",
                  "weights_bytes",
                  "activation_bytes",
                  "non_torch_bytes",
                  "graphs_bytes",
                  "measured_set_aside_bytes",
                  "kv_data_bytes",
                  "nz_padding_bytes",
                  "driver_reserve_bytes",
                  "unused_bytes",
                  "num_blocks",
                  "kv_bytes_per_block"};
  for (const DeviceCapacity& d : data.devices) {
    const auto segments = memory_segments(d.memory);
    std::vector<std::string> row = {d.device.name, csv_number(d.device.memory_bytes)};
    for (uint64_t bytes : segments) row.push_back(csv_number(bytes));
    row.push_back(csv_number(d.result.num_blocks.value_or(0)));
    row.push_back(csv_number(d.result.kv_bytes_per_block));
    table.rows.push_back(std::move(row));
  }
  return table;
}

CsvTable max_sequences_table(const CapacityViewData& data) {
  CsvTable table;
  table.header = {"seq_len"};
  for (const DeviceCapacity& d : data.devices) table.header.push_back(d.device.name);
  if (data.devices.empty()) return table;
  for (size_t i = 0; i < data.devices.front().max_sequences.size(); ++i) {
    std::vector<std::string> row = {csv_number(data.devices.front().max_sequences[i].seq_len)};
    for (const DeviceCapacity& d : data.devices) {
      row.push_back(csv_number(d.max_sequences[i].max_sequences));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace

std::array<uint64_t, 9> memory_segments(const MemoryBreakdown& m) {
  return {m.weights_bytes,    m.activation_bytes,     m.non_torch_bytes,
          m.graphs_bytes,     m.measured_bytes,       m.kv_data_bytes,
          m.nz_padding_bytes, m.driver_reserve_bytes, m.unused_bytes};
}

void show_memory_breakdown(PlotPanel* panel, const CapacityViewData& data) {
  QCustomPlot* plot = panel->plot();
  clear_plot(plot);
  QVector<QString> labels;
  QVector<double> keys;
  for (const DeviceCapacity& d : data.devices) {
    keys.push_back(static_cast<double>(labels.size()));
    labels.push_back(QString::fromStdString(d.device.name));
  }
  plot->legend->setWrap(3);
  plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, false);
  QCPBars* below = nullptr;
  for (size_t s = 0; s < kMemorySegmentNames.size(); ++s) {
    QVector<double> gib;
    bool empty = true;
    for (const DeviceCapacity& d : data.devices) {
      const uint64_t bytes = memory_segments(d.memory)[s];
      gib.push_back(static_cast<double>(bytes) / kBytesPerGiB);
      empty = empty && bytes == 0;
    }
    auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setName(kMemorySegmentNames[s]);
    bars->setWidth(0.6);
    bars->setPen(QPen(kSegmentColors[s].darker(130)));
    bars->setBrush(kSegmentColors[s]);
    bars->setData(keys, gib, true);
    if (below != nullptr) bars->moveAbove(below);
    if (empty) bars->removeFromLegend();
    below = bars;
  }
  set_text_ticks(plot->xAxis, labels);
  plot->xAxis->setTickLabelRotation(labels.size() > 4 ? 30 : 0);
  plot->xAxis->setRange(-0.6, static_cast<double>(labels.size()) - 0.4);
  plot->yAxis->setLabel("device memory (GiB)");
  double top = 0;
  for (const DeviceCapacity& d : data.devices) {
    top = std::max(top, static_cast<double>(d.device.memory_bytes) / kBytesPerGiB);
  }
  plot->yAxis->setRange(0, top * 1.3 + 1);
  plot->xAxis->grid()->setVisible(false);
  set_title(plot, "What each device's memory holds");
  show_legend(plot, Qt::AlignTop | Qt::AlignLeft);
  plot->replot();
  panel->set_table([data] { return memory_table(data); });
}

void show_max_sequences(PlotPanel* panel, const CapacityViewData& data) {
  QCustomPlot* plot = panel->plot();
  clear_plot(plot);
  double max_y = 1;
  double max_x = 1;
  for (size_t i = 0; i < data.devices.size(); ++i) {
    const DeviceCapacity& d = data.devices[i];
    QVector<double> x, y;
    for (const SeqLenPoint& p : d.max_sequences) {
      x.push_back(static_cast<double>(p.seq_len));
      y.push_back(static_cast<double>(p.max_sequences));
      max_y = std::max(max_y, y.back());
      max_x = std::max(max_x, x.back());
    }
    QCPGraph* graph = plot->addGraph();
    graph->setName(QString::fromStdString(d.device.name));
    graph->setPen(QPen(series_color(static_cast<int>(i)), 2));
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    graph->setData(x, y, true);
  }
  set_log_axis(plot->xAxis);
  set_log_axis(plot->yAxis);
  plot->xAxis->setLabel("sequence length (tokens)");
  plot->yAxis->setLabel("max concurrent sequences");
  plot->xAxis->setRange(100, max_x * 1.3);
  plot->yAxis->setRange(0.8, max_y * 3);
  set_title(plot, "Max concurrent sequences by sequence length");
  show_legend(plot);
  plot->replot();
  panel->set_table([data] { return max_sequences_table(data); });
}

}  // namespace kvsim::gui
