// The Simulation view: open a scenario preset or YAML file, edit its main fields, Run. The run
// happens on the JobRunner's worker thread (progress bar and Cancel in the status bar; the
// window stays responsive); every finished run is kept, and any two can be overlaid (run A
// solid, run B dashed): KV blocks over time (used / cached free / free, stacked), running /
// waiting / swapped requests, output tokens/s, TTFT and TPOT CDFs, run A's iteration time by
// operator for typical batches (as `kvsim cost` prints it), and the summary as
// `kvsim simulate` writes it. The edited scenario saves back to YAML.
//
// The widget gathers the fields into edits (gui/scenario_form_model.h), hands run_scenario()
// (gui/sim_run.h) to the runner, and gives the kept runs to the plot controllers
// (gui/sim_plots.h). It computes nothing itself.
#pragma once

#include <QMap>
#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "gui/result_job.h"
#include "gui/scenario_form_model.h"
#include "gui/sim_run.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace kvsim::gui {

class JobRunner;
class PlotPanel;

class SimulationView : public QWidget {
  Q_OBJECT

 public:
  static constexpr const char* kJobName = "simulate";

  SimulationView(JobRunner* runner, QWidget* parent = nullptr);

  // Opens a scenario preset or file and fills the form; false (message shown) on error.
  bool open(const QString& name_or_path);
  // Sets one field's text (a key of scenario_main_fields()).
  void set_field(const QString& key, const QString& text);
  // Starts a run of the edited scenario; false (message shown) when the edits are invalid or
  // the runner is busy.
  bool run();
  // Saves the edited scenario as YAML.
  Status save_to(const QString& path);

  // Adds a finished run (used by run() on completion and by --render, which runs in place).
  void add_run(SimRun run);
  const std::vector<SimRun>& runs() const { return runs_; }
  // Overlays runs a and b (b < 0: none).
  void select_runs(int a, int b);

  QString error_text() const;
  QList<PlotPanel*> panels() const;
  QTableWidget* summary_table() const { return summary_; }
  const std::optional<ScenarioDocument>& document() const { return document_; }

 private slots:
  void on_job_finished(const QString& name, bool ok, bool cancelled, const QString& message);
  void ask_open();
  void ask_save();
  void show_runs();

 private:
  QWidget* build_controls();
  std::vector<std::pair<std::string, std::string>> edits() const;
  void fill_fields();
  void fill_summary(const SimRun& a, const SimRun* b);

  JobRunner* runner_;
  QComboBox* preset_ = nullptr;
  QMap<QString, QWidget*> fields_;  // key -> QLineEdit or QComboBox
  QPushButton* run_button_ = nullptr;
  QLabel* error_ = nullptr;
  QComboBox* run_a_ = nullptr;
  QComboBox* run_b_ = nullptr;
  PlotPanel* kv_panel_ = nullptr;
  PlotPanel* requests_panel_ = nullptr;
  PlotPanel* throughput_panel_ = nullptr;
  PlotPanel* latency_panel_ = nullptr;
  PlotPanel* cost_panel_ = nullptr;
  QTableWidget* summary_ = nullptr;
  std::optional<ScenarioDocument> document_;
  std::vector<SimRun> runs_;  // every finished run, oldest first
  ResultJob<SimRun> job_;
};

}  // namespace kvsim::gui
