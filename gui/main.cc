// kvsim-gui: placeholder window until the GUI issue lands. It already plots real numbers:
// the KV cache capacity (max tokens) of the default model on every device preset, computed by
// the same library call as `kvsim capacity --device all`.
#include <QApplication>
#include <QMainWindow>
#include <QVector>

#include <qcustomplot.h>

#include "core/capacity.h"
#include "core/presets.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QMainWindow window;
  window.setWindowTitle("kvsim");
  auto* plot = new QCustomPlot(&window);
  auto model = kvsim::load_model("llama3-8b");
  QVector<double> ticks;
  QVector<double> tokens;
  QVector<QString> labels;
  for (const std::string& name : kvsim::preset_names(kvsim::PresetKind::kDevice)) {
    auto device = kvsim::load_device(name);
    if (!model.is_ok() || !device.is_ok()) continue;
    auto result = kvsim::compute_capacity(*model, &*device, kvsim::CapacityQuery{});
    if (!result.is_ok() || !result->max_tokens) continue;
    ticks.push_back(static_cast<double>(ticks.size() + 1));
    tokens.push_back(static_cast<double>(*result->max_tokens) / 1000.0);
    labels.push_back(QString::fromStdString(name));
  }
  auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
  bars->setData(ticks, tokens);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  ticker->addTicks(ticks, labels);
  plot->xAxis->setTicker(ticker);
  plot->xAxis->setTickLabelRotation(45);
  plot->yAxis->setLabel("max KV tokens (thousands), llama3-8b fp16");
  plot->rescaleAxes();
  plot->xAxis->setRange(0.3, static_cast<double>(ticks.size()) + 0.7);
  plot->yAxis->setRange(0, plot->yAxis->range().upper * 1.05);
  window.setCentralWidget(plot);
  window.resize(900, 600);
  if (argc > 2 && QString(argv[1]) == "--screenshot") {
    window.show();
    return plot->savePng(argv[2], 900, 600) ? 0 : 1;
  }
  window.show();
  return QApplication::exec();
}
