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

// A legend in the top right corner with a translucent background.
void show_legend(QCustomPlot* plot, Qt::Alignment alignment = Qt::AlignTop | Qt::AlignRight);

}  // namespace kvsim::gui
