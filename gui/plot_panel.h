// PlotPanel: one chart of a view with its export buttons (PNG, PDF, CSV).
//
// The panel owns a QCustomPlot and the CsvTable of the data a plot controller last moved into
// it, so that "Export CSV" writes exactly what is drawn. The panel computes nothing: plot
// controllers (gui/*_plots.h) fill both the chart and the table. QCustomPlot is only
// forward-declared here; the controllers' .cc files include it.
#pragma once

#include <QString>
#include <QWidget>
#include <functional>
#include <optional>

#include "core/base/status.h"
#include "gui/csv_table.h"

class QCustomPlot;
class QLabel;

namespace kvsim::gui {

inline constexpr int kExportWidth = 1000;  // pixels of an exported chart when not given
inline constexpr int kExportHeight = 600;

class PlotPanel : public QWidget {
  Q_OBJECT

 public:
  // `name` is the file stem used by "export all" ("memory" -> memory.png); `title` is shown
  // above the chart.
  PlotPanel(const QString& name, const QString& title, QWidget* parent = nullptr);

  QCustomPlot* plot() const { return plot_; }
  const QString& name() const { return name_; }

  // The data shown, for "Export CSV". Built from `source` when first asked for: a chart of a
  // hundred thousand points must not spend the GUI thread formatting text nobody exports.
  using TableSource = std::function<CsvTable()>;
  void set_table(TableSource source);
  const CsvTable& table() const;
  // True once a controller has moved data in (a view with no run yet has empty charts).
  bool has_data() const { return static_cast<bool>(source_); }

  // Writes the chart (width x height pixels; 0 = kExport*) or its data. Failures name the path.
  Status save_png(const QString& path, int width = 0, int height = 0) const;
  Status save_pdf(const QString& path, int width = 0, int height = 0) const;
  Status save_csv(const QString& path) const;

 private slots:
  void export_png();
  void export_pdf();
  void export_csv();

 private:
  QString ask_path(const QString& suffix, const QString& filter);
  void report(const Status& status);

  QString name_;
  QCustomPlot* plot_ = nullptr;
  TableSource source_;
  mutable std::optional<CsvTable> table_;  // built from source_ on demand
};

}  // namespace kvsim::gui
