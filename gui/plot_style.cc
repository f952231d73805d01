#include "gui/plot_style.h"

#include <qcustomplot.h>

namespace kvsim::gui {

QColor series_color(int index) {
  static const QColor kPalette[] = {
      QColor(0, 114, 178),  QColor(230, 159, 0), QColor(0, 158, 115),  QColor(204, 121, 167),
      QColor(86, 180, 233), QColor(213, 94, 0),  QColor(240, 228, 66), QColor(0, 0, 0)};
  constexpr int kSize = static_cast<int>(sizeof(kPalette) / sizeof(kPalette[0]));
  return kPalette[((index % kSize) + kSize) % kSize];
}

void clear_plot(QCustomPlot* plot) {
  plot->clearPlottables();
  plot->clearItems();
  plot->legend->clearItems();
}

void set_text_ticks(QCPAxis* axis, const QVector<QString>& labels) {
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < labels.size(); ++i) ticker->addTick(i, labels[i]);
  axis->setTicker(ticker);
  axis->setScaleType(QCPAxis::stLinear);
}

void set_log_axis(QCPAxis* axis) {
  axis->setScaleType(QCPAxis::stLogarithmic);
  auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
  axis->setTicker(ticker);
  axis->setNumberFormat("gb");
  axis->setNumberPrecision(6);
}

void set_linear_axis(QCPAxis* axis) {
  axis->setScaleType(QCPAxis::stLinear);
  axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
  axis->setNumberFormat("gb");
  axis->setNumberPrecision(6);
}

void set_integer_axis(QCPAxis* axis) {
  axis->setScaleType(QCPAxis::stLinear);
  auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  ticker->setTickStep(1.0);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  axis->setTicker(ticker);
  axis->setNumberFormat("f");
  axis->setNumberPrecision(0);
}

void show_legend(QCustomPlot* plot, Qt::Alignment alignment) {
  plot->legend->setVisible(true);
  plot->legend->setBrush(QColor(255, 255, 255, 210));
  plot->axisRect()->insetLayout()->setInsetAlignment(0, alignment);
}

}  // namespace kvsim::gui
