#include "gui/plot_style.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace kvsim::gui {

QColor series_color(int index) {
  static const QColor kPalette[] = {
      QColor(0, 114, 178),  QColor(230, 159, 0), QColor(0, 158, 115),  QColor(204, 121, 167),
      QColor(86, 180, 233), QColor(213, 94, 0),  QColor(240, 228, 66), QColor(0, 0, 0)};
  constexpr int kSize = static_cast<int>(sizeof(kPalette) / sizeof(kPalette[0]));
  return kPalette[((index % kSize) + kSize) % kSize];
}

QColor distinct_color(int index, int count) {
  if (count <= 8) return series_color(index);
  // Kelly (1965), without white and black: distinct for every kind of colour vision that can
  // tell 20 colours apart at all.
  static const QColor kKelly[] = {
      QColor(243, 195, 0),   QColor(135, 86, 146),  QColor(243, 132, 0),   QColor(161, 202, 241),
      QColor(190, 0, 50),    QColor(194, 178, 128), QColor(132, 132, 130), QColor(0, 136, 86),
      QColor(230, 143, 172), QColor(0, 103, 165),   QColor(249, 147, 121), QColor(96, 78, 151),
      QColor(246, 166, 0),   QColor(179, 68, 108),  QColor(220, 211, 0),   QColor(136, 45, 23),
      QColor(141, 182, 0),   QColor(101, 69, 34),   QColor(226, 88, 34),   QColor(43, 61, 38)};
  constexpr int kSize = static_cast<int>(sizeof(kKelly) / sizeof(kKelly[0]));
  if (count <= kSize) return kKelly[index];
  constexpr double kGoldenAngle = 137.507764;
  const int hue = static_cast<int>(std::fmod(index * kGoldenAngle, 360.0));
  return QColor::fromHsv(hue, 200, index % 2 == 0 ? 230 : 150);
}

namespace {

QCPTextElement* title_element(const QCustomPlot* plot) {
  QCPLayoutGrid* top = plot->plotLayout();
  return top->rowCount() > 1 ? qobject_cast<QCPTextElement*>(top->element(0, 0)) : nullptr;
}

}  // namespace

void set_title(QCustomPlot* plot, const QString& title) {
  if (QCPTextElement* element = title_element(plot)) {
    element->setText(title);
    return;
  }
  // Everything the chart holds moves into one body cell under the title, so that a title
  // spans axis rects placed side by side.
  QCPLayoutGrid* top = plot->plotLayout();
  auto* body = new QCPLayoutGrid;
  for (int row = 0; row < top->rowCount(); ++row) {
    for (int column = 0; column < top->columnCount(); ++column) {
      if (QCPLayoutElement* element = top->element(row, column)) {
        top->take(element);
        body->addElement(row, column, element);
      }
    }
  }
  top->simplify();
  QFont font = plot->font();
  font.setPointSize(11);
  font.setBold(true);
  top->addElement(0, 0, new QCPTextElement(plot, title, font));
  top->addElement(1, 0, body);
  top->setRowStretchFactor(0, 0.001);
}

QString plot_title(const QCustomPlot* plot) {
  const QCPTextElement* element = title_element(plot);
  return element != nullptr ? element->text() : QString();
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

void show_legend(QCustomPlot* plot, Qt::Alignment alignment, int columns) {
  plot->legend->setVisible(true);
  plot->legend->setBrush(QColor(255, 255, 255, 210));
  QFont font = plot->legend->font();
  font.setPointSize(std::max(font.pointSize(), kLegendPointSize));
  plot->legend->setFont(font);
  if (columns > 1) {
    plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst, false);
    plot->legend->setWrap((plot->legend->itemCount() + columns - 1) / columns);
    plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true);
  }
  plot->axisRect()->insetLayout()->setInsetAlignment(0, alignment);
}

}  // namespace kvsim::gui
