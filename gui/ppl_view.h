// The PPL-impact view: pick a checkpoint (default: the shared kjv-tiny model), a text, policy
// specs and cache budgets; the perplexity harness runs on the JobRunner's worker thread
// (progress and Cancel in the status bar); the chart shows perplexity versus budget per policy
// (log y) with the KV bytes saved on a second axis, and a table the report as `kvsim ppl`
// prints it.
//
// The widget gathers its fields into a PplStudyInput, hands run_ppl_study()
// (gui/ppl_study.h) to the runner and the result to show_ppl() (gui/ppl_plots.h).
#pragma once

#include <QWidget>
#include <optional>

#include "gui/ppl_study.h"
#include "gui/result_job.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace kvsim::gui {

class JobRunner;
class PlotPanel;

class PplView : public QWidget {
  Q_OBJECT

 public:
  static constexpr const char* kJobName = "perplexity";

  PplView(JobRunner* runner, QWidget* parent = nullptr);

  // The fields as a study input; a bad budget list is an error.
  StatusOr<PplStudyInput> input() const;
  void set_input(const PplStudyInput& input);
  // Starts the study; false (message shown) on bad input or a busy runner.
  bool run();
  // Shows a finished study (used on completion and by --render, which runs in place).
  void show_study(PplStudy study);

  const std::optional<PplStudy>& study() const { return study_; }
  QString error_text() const;
  PlotPanel* panel() const { return panel_; }
  QTableWidget* table() const { return table_; }

 private slots:
  void on_job_finished(const QString& name, bool ok, bool cancelled, const QString& message);
  void browse_checkpoint();

 private:
  QWidget* build_controls();
  void fill_table(const PplStudy& study);

  JobRunner* runner_;
  QLineEdit* checkpoint_ = nullptr;
  QLineEdit* tokenizer_ = nullptr;
  QLineEdit* text_ = nullptr;
  QSpinBox* max_tokens_ = nullptr;
  QSpinBox* ctx_ = nullptr;
  QLineEdit* policies_ = nullptr;
  QLineEdit* budgets_ = nullptr;
  QPushButton* run_button_ = nullptr;
  QLabel* error_ = nullptr;
  PlotPanel* panel_ = nullptr;
  QTableWidget* table_ = nullptr;
  std::optional<PplStudy> study_;
  ResultJob<PplStudy> job_;
};

}  // namespace kvsim::gui
