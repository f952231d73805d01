// Shared look of kvsim's charts: one colour per series index, fixed colours for the memory
// segments and block states, and the axis helpers every controller uses. Drawing only.
#pragma once

#include <QColor>
#include <QString>
#include <QVector>

class QCPAxis;
class QCustomPlot;

namespace kvsim::gui {

// A colour-blind-safe palette (Okabe-Ito), cycled.
QColor series_color(int index);

// Colour `index` of `count` series that must all differ (a stack of operators): Okabe-Ito's 8
// when they suffice, else Kelly's 20 colours of maximum contrast, else hues a golden angle
// apart at alternating lightness. Never two alike for index < count.
QColor distinct_color(int index, int count);

// The chart's title, bold, above everything it holds (axis rects side by side included).
void set_title(QCustomPlot* plot, const QString& title);

// The title set_title gave the chart, or "" without one.
QString plot_title(const QCustomPlot* plot);

// Clears every plottable, item and legend entry of a chart, keeping axes settings.
void clear_plot(QCustomPlot* plot);

// Puts `labels` under integer ticks 0, 1, ... on `axis`.
void set_text_ticks(QCPAxis* axis, const QVector<QString>& labels);

// A log10 axis with 1-2-5 style ticks.
void set_log_axis(QCPAxis* axis);

// A linear axis with ticks on whole numbers only (cell rows and columns).
void set_integer_axis(QCPAxis* axis);

// A linear axis with plain ticks (undoes set_log_axis).
void set_linear_axis(QCPAxis* axis);

// A legend in the top right corner with a translucent background, in a font of at least
// kLegendPointSize; `columns` > 1 lays its entries out in that many columns (1 keeps the
// legend's own arrangement).
inline constexpr int kLegendPointSize = 9;
void show_legend(QCustomPlot* plot, Qt::Alignment alignment = Qt::AlignTop | Qt::AlignRight,
                 int columns = 1);

}  // namespace kvsim::gui
