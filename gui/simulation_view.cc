#include "gui/simulation_view.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "gui/cost_plots.h"
#include "gui/form_widgets.h"
#include "gui/job_runner.h"
#include "gui/plot_panel.h"
#include "gui/sim_plots.h"

namespace kvsim::gui {
namespace {

const char* const kDefaultScenario = "default";
const char* const kNoRun = "(none)";

QString widget_text(const QWidget* widget) {
  if (const auto* line = qobject_cast<const QLineEdit*>(widget)) return line->text().trimmed();
  return qobject_cast<const QComboBox*>(widget)->currentText();
}

void set_widget_text(QWidget* widget, const QString& text) {
  if (auto* line = qobject_cast<QLineEdit*>(widget)) {
    line->setText(text);
  } else {
    qobject_cast<QComboBox*>(widget)->setCurrentText(text);
  }
}

std::string run_label(size_t index, const SimRun& run) {
  const sim::RunInfo& info = run.summary.info;
  return "run " + std::to_string(index + 1) + ": " + info.scenario + " (" + info.model + " on " +
         info.device + ")";
}

}  // namespace

SimulationView::SimulationView(JobRunner* runner, QWidget* parent)
    : QWidget(parent), runner_(runner) {
  setObjectName("simulation_view");
  kv_panel_ = new PlotPanel("memory", "KV blocks over time", this);
  requests_panel_ = new PlotPanel("requests", "Requests over time", this);
  throughput_panel_ = new PlotPanel("throughput", "Output tokens/s over time", this);
  latency_panel_ = new PlotPanel("latency", "TTFT and TPOT CDFs", this);
  cost_panel_ = new PlotPanel("cost", "Iteration time by operator (run A's cost model)", this);
  summary_ = new QTableWidget(0, 3, this);
  summary_->setObjectName("sim_summary");
  summary_->setHorizontalHeaderLabels({"metric (summary.json)", "run A", "run B"});
  summary_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  summary_->horizontalHeader()->setStretchLastSection(true);
  summary_->setWordWrap(false);
  summary_->verticalHeader()->setVisible(false);
  summary_->setEditTriggers(QAbstractItemView::NoEditTriggers);

  auto* charts = new QWidget(this);
  auto* grid = new QGridLayout(charts);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->addWidget(kv_panel_, 0, 0);
  grid->addWidget(requests_panel_, 0, 1);
  grid->addWidget(throughput_panel_, 1, 0);
  grid->addWidget(latency_panel_, 1, 1);
  grid->addWidget(cost_panel_, 2, 0, 1, 2);
  auto* right = new QSplitter(Qt::Horizontal, this);
  right->addWidget(charts);
  right->addWidget(summary_);
  right->setStretchFactor(0, 4);
  right->setStretchFactor(1, 1);
  right->setSizes({1000, 440});

  auto* layout = new QHBoxLayout(this);
  layout->addWidget(build_controls());
  layout->addWidget(right, 1);
  connect(runner_, &JobRunner::finished, this, &SimulationView::on_job_finished);
  open(kDefaultScenario);
}

QWidget* SimulationView::build_controls() {
  auto* box = new QWidget(this);
  box->setMaximumWidth(300);
  preset_ = preset_combo(box, PresetKind::kScenario, "sim_scenario", kDefaultScenario);
  auto* open_button = new QPushButton("Open YAML...", box);
  auto* save_button = new QPushButton("Save YAML...", box);
  auto* file_row = new QHBoxLayout;
  file_row->addWidget(open_button);
  file_row->addWidget(save_button);
  auto* form = new QFormLayout;
  form->addRow("Scenario", preset_);
  form->addRow(file_row);
  for (const ScenarioField& field : scenario_main_fields()) {
    const QString key = QString::fromStdString(field.key);
    QWidget* editor = nullptr;
    if (field.choices.empty()) {
      editor = new QLineEdit(box);
    } else {
      auto* combo = new QComboBox(box);
      for (const std::string& choice : field.choices)
        combo->addItem(QString::fromStdString(choice));
      editor = combo;
    }
    editor->setObjectName("sim_field_" + key);
    editor->setToolTip(key);
    fields_.insert(key, editor);
    form->addRow(QString::fromStdString(field.label), editor);
  }
  run_button_ = new QPushButton("Run", box);
  run_button_->setObjectName("sim_run");
  error_ = error_label(box, "sim_error");
  run_a_ = new QComboBox(box);
  run_a_->setObjectName("sim_run_a");
  run_b_ = new QComboBox(box);
  run_b_->setObjectName("sim_run_b");
  auto* runs_box = new QGroupBox("Kept runs: A solid, B dashed", box);
  auto* runs = new QGridLayout(runs_box);
  runs->addWidget(new QLabel("A", runs_box), 0, 0);
  runs->addWidget(run_a_, 0, 1);
  runs->addWidget(new QLabel("B", runs_box), 1, 0);
  runs->addWidget(run_b_, 1, 1);
  runs->setColumnStretch(1, 1);

  auto* column = new QVBoxLayout(box);
  column->addLayout(form);
  column->addWidget(run_button_);
  column->addWidget(error_);
  column->addWidget(runs_box);
  column->addStretch(1);
  connect(preset_, &QComboBox::activated, this, [this] { open(preset_->currentText()); });
  connect(open_button, &QPushButton::clicked, this, &SimulationView::ask_open);
  connect(save_button, &QPushButton::clicked, this, &SimulationView::ask_save);
  connect(run_button_, &QPushButton::clicked, this, &SimulationView::run);
  connect(run_a_, &QComboBox::currentIndexChanged, this, &SimulationView::show_runs);
  connect(run_b_, &QComboBox::currentIndexChanged, this, &SimulationView::show_runs);
  return box;
}

bool SimulationView::open(const QString& name_or_path) {
  auto document = open_scenario(name_or_path.trimmed().toStdString());
  if (!show_status(error_, document.status())) return false;
  document_ = std::move(document).value();
  preset_->setCurrentText(QString::fromStdString(document_->source));
  fill_fields();
  return true;
}

void SimulationView::fill_fields() {
  const std::vector<std::string> texts = field_texts(document_->scenario);
  const std::vector<ScenarioField>& fields = scenario_main_fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    set_widget_text(fields_.value(QString::fromStdString(fields[i].key)),
                    QString::fromStdString(texts[i]));
  }
}

void SimulationView::set_field(const QString& key, const QString& text) {
  if (QWidget* widget = fields_.value(key)) set_widget_text(widget, text);
}

std::vector<std::pair<std::string, std::string>> SimulationView::edits() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ScenarioField& field : scenario_main_fields()) {
    out.emplace_back(field.key,
                     widget_text(fields_.value(QString::fromStdString(field.key))).toStdString());
  }
  return out;
}

bool SimulationView::run() {
  if (!document_) return false;
  auto tree = edited_tree(*document_, edits());
  if (!show_status(error_, tree.status())) return false;
  const bool started = job_.start(
      runner_, kJobName,
      [tree = std::move(tree).value(), name = document_->name, base = document_->base_dir](
          const std::function<void(double)>& progress, const std::atomic<bool>* stop) {
        return run_scenario(tree, name, base, progress, stop);
      });
  if (!started) {
    return show_status(error_,
                       Status::invalid_argument("another job is running; wait or cancel it"));
  }
  run_button_->setEnabled(false);
  return true;
}

void SimulationView::on_job_finished(const QString& name, bool ok, bool cancelled,
                                     const QString& message) {
  if (!job_.is_mine(name)) return;
  run_button_->setEnabled(true);
  auto outcome = job_.take(ok, cancelled, message);
  if (show_status(error_, outcome.status())) add_run(std::move(outcome).value());
}

void SimulationView::add_run(SimRun run) {
  run.label = run_label(runs_.size(), run);
  runs_.push_back(std::move(run));
  const int newest = static_cast<int>(runs_.size()) - 1;
  run_a_->blockSignals(true);
  run_b_->blockSignals(true);
  run_a_->addItem(QString::fromStdString(runs_.back().label));
  if (run_b_->count() == 0) run_b_->addItem(kNoRun);
  run_b_->addItem(QString::fromStdString(runs_.back().label));
  run_a_->blockSignals(false);
  run_b_->blockSignals(false);
  select_runs(newest, -1);
}

void SimulationView::select_runs(int a, int b) {
  run_a_->blockSignals(true);
  run_b_->blockSignals(true);
  run_a_->setCurrentIndex(a);
  run_b_->setCurrentIndex(b < 0 ? 0 : b + 1);
  run_a_->blockSignals(false);
  run_b_->blockSignals(false);
  show_runs();
}

void SimulationView::show_runs() {
  const int a = run_a_->currentIndex();
  const int b = run_b_->currentIndex() - 1;
  if (a < 0 || a >= static_cast<int>(runs_.size())) return;
  const SimRun& run_a = runs_[static_cast<size_t>(a)];
  const SimRun* run_b =
      b >= 0 && b < static_cast<int>(runs_.size()) ? &runs_[static_cast<size_t>(b)] : nullptr;
  show_kv_blocks(kv_panel_, run_a, run_b);
  show_requests(requests_panel_, run_a, run_b);
  show_throughput(throughput_panel_, run_a, run_b);
  show_latency(latency_panel_, run_a, run_b);
  show_cost(cost_panel_, run_a);
  fill_summary(run_a, run_b);
}

void SimulationView::fill_summary(const SimRun& a, const SimRun* b) {
  const auto fields_a = summary_fields(a.summary);
  const auto fields_b = b != nullptr ? summary_fields(b->summary)
                                     : std::vector<std::pair<std::string, std::string>>{};
  summary_->setRowCount(static_cast<int>(fields_a.size()));
  for (size_t i = 0; i < fields_a.size(); ++i) {
    const int row = static_cast<int>(i);
    summary_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(fields_a[i].first)));
    summary_->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(fields_a[i].second)));
    const QString other = i < fields_b.size() ? QString::fromStdString(fields_b[i].second) : "";
    summary_->setItem(row, 2, new QTableWidgetItem(other));
  }
}

Status SimulationView::save_to(const QString& path) {
  if (!document_) return Status::invalid_argument("no scenario is open");
  KVSIM_ASSIGN_OR_RETURN(ConfigNode tree, edited_tree(*document_, edits()));
  return save_scenario(tree, path.toStdString());
}

void SimulationView::ask_open() {
  const QString path = QFileDialog::getOpenFileName(this, "Open scenario", QString(),
                                                    "Scenario YAML (*.yaml *.yml)");
  if (!path.isEmpty()) open(path);
}

void SimulationView::ask_save() {
  const QString path = QFileDialog::getSaveFileName(
      this, "Save scenario",
      QString::fromStdString(document_ ? document_->name : "scenario") + ".yaml",
      "Scenario YAML (*.yaml *.yml)");
  if (!path.isEmpty()) show_status(error_, save_to(path));
}

QString SimulationView::error_text() const { return error_->text(); }

QList<PlotPanel*> SimulationView::panels() const {
  return {kv_panel_, requests_panel_, throughput_panel_, latency_panel_, cost_panel_};
}

}  // namespace kvsim::gui
