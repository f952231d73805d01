#include "gui/main_window.h"

#include <QDir>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QTabWidget>

#include "gui/capacity_view.h"
#include "gui/job_runner.h"
#include "gui/layout_view.h"
#include "gui/plot_panel.h"
#include "gui/ppl_view.h"
#include "gui/simulation_view.h"
#include "gui/teaching_view.h"

namespace kvsim::gui {
namespace {

constexpr int kProgressSteps = 1000;

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("kvsim");
  runner_ = new JobRunner(this);
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName("tabs");
  capacity_ = new CapacityView(tabs_);
  simulation_ = new SimulationView(runner_, tabs_);
  ppl_ = new PplView(runner_, tabs_);
  teaching_ = new TeachingView(tabs_);
  tabs_->addTab(capacity_, "Capacity");
  tabs_->addTab(simulation_, "Simulation");
  tabs_->addTab(ppl_, "PPL impact");
  tabs_->addTab(teaching_, "Cache and layout");
  setCentralWidget(tabs_);
  build_menu();
  build_status_bar();
  resize(1500, 950);
}

void MainWindow::build_menu() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("Export all charts...", this, &MainWindow::ask_export_all);
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
}

void MainWindow::build_status_bar() {
  job_label_ = new QLabel("idle", this);
  job_label_->setObjectName("job_label");
  progress_ = new QProgressBar(this);
  progress_->setObjectName("job_progress");
  progress_->setRange(0, kProgressSteps);
  progress_->setMaximumWidth(300);
  cancel_ = new QPushButton("Cancel", this);
  cancel_->setObjectName("job_cancel");
  cancel_->setEnabled(false);
  statusBar()->addPermanentWidget(job_label_);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);
  connect(cancel_, &QPushButton::clicked, runner_, &JobRunner::cancel);
  connect(runner_, &JobRunner::started, this, &MainWindow::on_job_started);
  connect(runner_, &JobRunner::progress_changed, this, &MainWindow::on_job_progress);
  connect(runner_, &JobRunner::finished, this, &MainWindow::on_job_finished);
}

LayoutView* MainWindow::layout_view() const { return teaching_->layout_view(); }

BlockDemoView* MainWindow::block_demo_view() const { return teaching_->block_demo_view(); }

QList<PlotPanel*> MainWindow::panels() const {
  QList<PlotPanel*> out;
  for (int i = 0; i < tabs_->count(); ++i) out += tabs_->widget(i)->findChildren<PlotPanel*>();
  return out;
}

Status MainWindow::export_all(const QString& dir) const {
  if (!QDir().mkpath(dir)) return Status::io_error(dir.toStdString() + ": cannot create folder");
  for (const PlotPanel* panel : panels()) {
    if (!panel->has_data()) continue;
    const QString stem = QDir(dir).filePath(panel->name());
    KVSIM_RETURN_IF_ERROR(panel->save_png(stem + ".png"));
    KVSIM_RETURN_IF_ERROR(panel->save_pdf(stem + ".pdf"));
    KVSIM_RETURN_IF_ERROR(panel->save_csv(stem + ".csv"));
  }
  return Status::ok();
}

void MainWindow::ask_export_all() {
  const QString dir = QFileDialog::getExistingDirectory(this, "Export all charts to");
  if (dir.isEmpty()) return;
  const Status status = export_all(dir);
  if (!status.is_ok()) {
    QMessageBox::warning(this, "Export failed", QString::fromStdString(status.message()));
  } else {
    statusBar()->showMessage("exported to " + dir, 5000);
  }
}

void MainWindow::on_job_started(const QString& name) {
  job_label_->setText(name);
  progress_->setValue(0);
  cancel_->setEnabled(true);
}

void MainWindow::on_job_progress(double fraction) {
  progress_->setValue(static_cast<int>(fraction * kProgressSteps));
}

void MainWindow::on_job_finished(const QString& name, bool ok, bool cancelled,
                                 const QString& message) {
  cancel_->setEnabled(false);
  if (ok) {
    progress_->setValue(kProgressSteps);
    job_label_->setText(name + ": done");
  } else if (cancelled) {
    job_label_->setText(name + ": cancelled");
  } else {
    job_label_->setText(name + ": failed");
    statusBar()->showMessage(message, 10000);
  }
}

}  // namespace kvsim::gui
