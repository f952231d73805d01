#include "gui/block_demo_view.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>

#include "core/cache/eviction_policy.h"
#include "gui/block_grid_plots.h"
#include "gui/form_widgets.h"
#include "gui/plot_panel.h"

namespace kvsim::gui {
namespace {

QString stats_text(const KvCacheStats& s) {
  return QString(
             "used %1, cached free %2, empty free %3 | prefix-hit tokens %4 of %5 looked up"
             " | evictions %6, copies %7, preemptions %8")
      .arg(s.num_used_blocks)
      .arg(s.num_cached_free_blocks)
      .arg(s.num_empty_free_blocks)
      .arg(s.num_prefix_hit_tokens)
      .arg(s.num_prefix_query_tokens)
      .arg(s.num_evictions)
      .arg(s.num_cow_copies)
      .arg(s.num_preemptions);
}

const char* const kLegendHtml =
    "fill: <span style='background:#ffd27f'>&nbsp;used (colour of its first request)&nbsp;</span> "
    "<span style='background:#b8e186'>&nbsp;cached free&nbsp;</span> "
    "<span style='background:#ebebeb'>&nbsp;empty free&nbsp;</span> &nbsp; border: "
    "<span style='color:#009600'><b>prefix hit</b></span>, "
    "<span style='color:#c80000'><b>evicted</b></span> (dashed), <b>new or copied</b>";

}  // namespace

BlockDemoView::BlockDemoView(QWidget* parent) : QWidget(parent) {
  setObjectName("block_demo_view");
  eviction_ = new QComboBox(this);
  eviction_->setObjectName("blocks_eviction");
  for (const std::string& name : eviction_names()) {
    eviction_->addItem(QString::fromStdString(name));
  }
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setObjectName("blocks_step");
  slider_->setPageStep(1);
  auto* back = new QPushButton("<", this);
  auto* next = new QPushButton(">", this);
  back->setMaximumWidth(32);
  next->setMaximumWidth(32);
  step_label_ = new QLabel(this);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel("Eviction", this));
  controls->addWidget(eviction_);
  controls->addWidget(back);
  controls->addWidget(slider_, 1);
  controls->addWidget(next);
  controls->addWidget(step_label_);

  action_ = new QLabel(this);
  action_->setObjectName("blocks_action");
  action_->setWordWrap(true);
  note_ = new QLabel(this);
  note_->setObjectName("blocks_note");
  note_->setWordWrap(true);
  stats_ = new QLabel(this);
  stats_->setObjectName("blocks_stats");
  stats_->setWordWrap(true);
  error_ = error_label(this, "blocks_error");
  panel_ = new PlotPanel("blocks", "KV block pool", this);
  events_ = new QPlainTextEdit(this);
  events_->setObjectName("blocks_events");
  events_->setReadOnly(true);
  events_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  events_->setMaximumHeight(150);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(action_);
  layout->addWidget(note_);
  layout->addWidget(error_);
  auto* legend = new QLabel(kLegendHtml, this);
  legend->setWordWrap(true);
  layout->addWidget(legend);
  layout->addWidget(panel_, 1);
  layout->addWidget(stats_);
  layout->addWidget(events_);

  connect(eviction_, &QComboBox::currentTextChanged, this, &BlockDemoView::rerun);
  connect(slider_, &QSlider::valueChanged, this, &BlockDemoView::show_step);
  connect(back, &QPushButton::clicked, this, [this] { slider_->setValue(slider_->value() - 1); });
  connect(next, &QPushButton::clicked, this, [this] { slider_->setValue(slider_->value() + 1); });
  rerun();
}

void BlockDemoView::set_eviction(EvictionKind eviction) {
  eviction_->setCurrentText(QString::fromUtf8(eviction_name(eviction)));
}

void BlockDemoView::set_step(int step) { slider_->setValue(step); }

int BlockDemoView::step() const { return slider_->value(); }

QString BlockDemoView::error_text() const { return error_->text(); }

void BlockDemoView::rerun() {
  // The combo lists eviction_names(), so its text always parses.
  const auto eviction = parse_eviction(eviction_->currentText().toStdString());
  if (!show_status(error_, eviction.status())) return;
  auto demo = compute_block_grid(*eviction);
  if (!show_status(error_, demo.status())) return;
  data_ = std::move(demo).value();
  const int step = slider_->value();
  slider_->blockSignals(true);
  slider_->setRange(0, static_cast<int>(data_->steps.size()) - 1);
  slider_->setValue(step);
  slider_->blockSignals(false);
  show_step();
}

void BlockDemoView::show_step() {
  if (!data_ || data_->steps.empty()) return;
  const auto index = static_cast<size_t>(slider_->value());
  const BlockGridStep& step = data_->steps[index];
  step_label_->setText(QString("step %1 / %2").arg(index + 1).arg(data_->steps.size()));
  action_->setText(QString("<b>Step %1: %2</b>")
                       .arg(index + 1)
                       .arg(QString::fromStdString(step.action).toHtmlEscaped()));
  note_->setText(QString::fromStdString(step.note));
  stats_->setText(stats_text(step.stats));
  QStringList events;
  for (const std::string& event : step.events) events << QString::fromStdString(event);
  events_->setPlainText(events.join("\n"));
  show_block_step(panel_, *data_, index);
}

}  // namespace kvsim::gui
