// MainWindow: the kvsim-gui shell. One tab per view; a status bar with the background job's
// progress bar and Cancel button (wired to the one JobRunner the views share); File > Export
// all charts writes every chart as PNG and PDF and its data as CSV.
//
// The window owns the runner and the views and nothing else: views compute through the
// library, plot controllers fill the charts, the window only arranges them.
#pragma once

#include <QList>
#include <QMainWindow>
#include <QString>

#include "core/base/status.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;

namespace kvsim::gui {

class BlockDemoView;
class CapacityView;
class JobRunner;
class LayoutView;
class PlotPanel;
class PplView;
class SimulationView;
class TeachingView;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);

  JobRunner* runner() const { return runner_; }
  QTabWidget* tabs() const { return tabs_; }
  CapacityView* capacity_view() const { return capacity_; }
  SimulationView* simulation_view() const { return simulation_; }
  PplView* ppl_view() const { return ppl_; }
  TeachingView* teaching_view() const { return teaching_; }
  LayoutView* layout_view() const;
  BlockDemoView* block_demo_view() const;

  // Every chart of every view, in tab order.
  QList<PlotPanel*> panels() const;

  // Writes <dir>/<chart>.png, .pdf and .csv for every chart that holds data; the first
  // failure is returned.
  Status export_all(const QString& dir) const;

 private slots:
  void on_job_started(const QString& name);
  void on_job_progress(double fraction);
  void on_job_finished(const QString& name, bool ok, bool cancelled, const QString& message);
  void ask_export_all();

 private:
  void build_menu();
  void build_status_bar();

  JobRunner* runner_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  CapacityView* capacity_ = nullptr;
  SimulationView* simulation_ = nullptr;
  PplView* ppl_ = nullptr;
  TeachingView* teaching_ = nullptr;
  QLabel* job_label_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
};

}  // namespace kvsim::gui
