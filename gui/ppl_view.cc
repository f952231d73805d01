#include "gui/ppl_view.h"

#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/base/data_dir.h"
#include "gui/form_widgets.h"
#include "gui/job_runner.h"
#include "gui/plot_panel.h"
#include "gui/ppl_plots.h"

namespace kvsim::gui {
namespace {

QString join_specs(const std::vector<std::string>& specs) {
  QStringList out;
  for (const std::string& spec : specs) out << QString::fromStdString(spec);
  return out.join(' ');
}

QString join_budgets(const std::vector<uint64_t>& budgets) {
  QStringList out;
  for (uint64_t budget : budgets) out << QString::number(budget);
  return out.join(',');
}

QLineEdit* line_edit(QWidget* parent, const QString& name, const QString& placeholder) {
  auto* edit = new QLineEdit(parent);
  edit->setObjectName(name);
  edit->setPlaceholderText(placeholder);
  return edit;
}

}  // namespace

PplView::PplView(JobRunner* runner, QWidget* parent) : QWidget(parent), runner_(runner) {
  setObjectName("ppl_view");
  panel_ = new PlotPanel("ppl", "Perplexity vs cache budget (KV bytes saved on the right)", this);
  table_ = new QTableWidget(0, 7, this);
  table_->setObjectName("ppl_table");
  table_->setHorizontalHeaderLabels(
      {"policy", "budget", "ppl", "delta_ppl", "KL(full||p)", "top-1", "KV bytes/seq"});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->verticalHeader()->setVisible(false);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  auto* right = new QSplitter(Qt::Vertical, this);
  right->addWidget(panel_);
  right->addWidget(table_);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  auto* layout = new QHBoxLayout(this);
  layout->addWidget(build_controls());
  layout->addWidget(right, 1);
  connect(runner_, &JobRunner::finished, this, &PplView::on_job_finished);
  set_input(PplStudyInput{});
}

QWidget* PplView::build_controls() {
  auto* box = new QWidget(this);
  box->setMaximumWidth(320);
  auto* form = new QFormLayout;
  checkpoint_ = line_edit(box, "ppl_checkpoint", "folder with model.bin, or a model file");
  auto* browse = new QPushButton("Browse...", box);
  auto* row = new QHBoxLayout;
  row->addWidget(checkpoint_, 1);
  row->addWidget(browse);
  form->addRow("Checkpoint", row);
  tokenizer_ = line_edit(box, "ppl_tokenizer", "tokenizer.bin beside the model");
  form->addRow("Tokenizer", tokenizer_);
  text_ = line_edit(box, "ppl_text", "eval_a.txt beside the model");
  form->addRow("Text", text_);
  max_tokens_ = int_spin(box, "ppl_max_tokens", 0, 1 << 24);
  max_tokens_->setSpecialValueText("all");
  form->addRow("Tokens scored", max_tokens_);
  ctx_ = int_spin(box, "ppl_ctx", 0, 1 << 16);
  ctx_->setSpecialValueText("model's seq_len");
  form->addRow("Window (ctx)", ctx_);
  policies_ = line_edit(box, "ppl_policies", "window:W sink:S,W h2o:H,R int8 int4:G,R");
  form->addRow("Policies", policies_);
  budgets_ = line_edit(box, "ppl_budgets", "16,32,64");
  form->addRow("Budgets (tokens)", budgets_);
  run_button_ = new QPushButton("Run", box);
  run_button_->setObjectName("ppl_run");
  error_ = error_label(box, "ppl_error");
  auto* column = new QVBoxLayout(box);
  column->addLayout(form);
  column->addWidget(run_button_);
  column->addWidget(error_);
  column->addStretch(1);
  connect(browse, &QPushButton::clicked, this, &PplView::browse_checkpoint);
  connect(run_button_, &QPushButton::clicked, this, &PplView::run);
  return box;
}

StatusOr<PplStudyInput> PplView::input() const {
  PplStudyInput in;
  in.checkpoint = checkpoint_->text().trimmed().toStdString();
  in.tokenizer = tokenizer_->text().trimmed().toStdString();
  in.text = text_->text().trimmed().toStdString();
  in.max_tokens = static_cast<uint64_t>(max_tokens_->value());
  in.ctx = static_cast<uint32_t>(ctx_->value());
  in.policies = split_specs(policies_->text().toStdString());
  KVSIM_ASSIGN_OR_RETURN(in.budgets, parse_budgets(budgets_->text().toStdString()));
  return in;
}

void PplView::set_input(const PplStudyInput& in) {
  checkpoint_->setText(QString::fromStdString(in.checkpoint));
  tokenizer_->setText(QString::fromStdString(in.tokenizer));
  text_->setText(QString::fromStdString(in.text));
  max_tokens_->setValue(static_cast<int>(in.max_tokens));
  ctx_->setValue(static_cast<int>(in.ctx));
  policies_->setText(join_specs(in.policies));
  budgets_->setText(join_budgets(in.budgets));
}

bool PplView::run() {
  auto in = input();
  if (!show_status(error_, in.status())) return false;
  const bool started =
      job_.start(runner_, kJobName,
                 [in = std::move(in).value()](const std::function<void(double)>& progress,
                                              const std::atomic<bool>* stop) {
                   return run_ppl_study(in, progress, stop);
                 });
  if (!started) {
    return show_status(error_,
                       Status::invalid_argument("another job is running; wait or cancel it"));
  }
  run_button_->setEnabled(false);
  return true;
}

void PplView::on_job_finished(const QString& name, bool ok, bool cancelled,
                              const QString& message) {
  if (!job_.is_mine(name)) return;
  run_button_->setEnabled(true);
  auto outcome = job_.take(ok, cancelled, message);
  if (show_status(error_, outcome.status())) show_study(std::move(outcome).value());
}

void PplView::show_study(PplStudy study) {
  error_->clear();
  study_ = std::move(study);
  show_ppl(panel_, *study_);
  fill_table(*study_);
}

void PplView::fill_table(const PplStudy& study) {
  const auto& results = study.report.results;
  table_->setRowCount(static_cast<int>(results.size()));
  for (size_t i = 0; i < results.size(); ++i) {
    const kernels::PolicyResult& r = results[i];
    const QStringList cells = {QString::fromStdString(r.policy),
                               r.budget_tokens ? QString::number(*r.budget_tokens) : QString("-"),
                               QString::number(r.ppl, 'f', 4),
                               QString::asprintf("%+.4f", r.delta_ppl),
                               QString::number(r.kl, 'f', 5),
                               QString::asprintf("%.2f%%", 100.0 * r.top1_agreement),
                               QString::number(r.kv_bytes)};
    for (int c = 0; c < cells.size(); ++c) {
      table_->setItem(static_cast<int>(i), c, new QTableWidgetItem(cells[c]));
    }
  }
}

void PplView::browse_checkpoint() {
  const QString start = QString::fromStdString(resolve_data_path(kDefaultCheckpointDir));
  const QString path =
      QFileDialog::getOpenFileName(this, "Model checkpoint", start, "llama2.c checkpoints (*.bin)");
  if (!path.isEmpty()) checkpoint_->setText(path);
}

QString PplView::error_text() const { return error_->text(); }

}  // namespace kvsim::gui
