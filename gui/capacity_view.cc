#include "gui/capacity_view.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include "core/config/presets.h"
#include "gui/capacity_plots.h"
#include "gui/form_widgets.h"
#include "gui/plot_panel.h"

namespace kvsim::gui {
namespace {

const char* const kDefaultModel = "llama3-8b";

}  // namespace

CapacityView::CapacityView(QWidget* parent) : QWidget(parent) {
  setObjectName("capacity_view");
  memory_panel_ = new PlotPanel("capacity_memory", "Memory per device", this);
  sequences_panel_ =
      new PlotPanel("capacity_sequences", "Max concurrent sequences vs sequence length", this);
  report_ = new QPlainTextEdit(this);
  report_->setObjectName("capacity_report");
  report_->setReadOnly(true);
  report_->setLineWrapMode(QPlainTextEdit::NoWrap);
  report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

  auto* plots = new QSplitter(Qt::Horizontal, this);
  plots->addWidget(memory_panel_);
  plots->addWidget(sequences_panel_);
  auto* right = new QSplitter(Qt::Vertical, this);
  right->addWidget(plots);
  right->addWidget(report_);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);

  auto* layout = new QHBoxLayout(this);
  layout->addWidget(build_controls());
  layout->addWidget(right, 1);
  recompute();
}

QWidget* CapacityView::build_controls() {
  auto* box = new QWidget(this);
  box->setMaximumWidth(280);
  auto* form = new QFormLayout;
  model_ = preset_combo(box, PresetKind::kModel, "capacity_model", kDefaultModel);
  form->addRow("Model", model_);

  devices_ = new QListWidget(box);
  devices_->setObjectName("capacity_devices");
  for (const std::string& name : preset_names(PresetKind::kDevice)) {
    auto* item = new QListWidgetItem(QString::fromStdString(name), devices_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
  }
  for (const std::string& name : default_comparison_devices()) {
    for (QListWidgetItem* item :
         devices_->findItems(QString::fromStdString(name), Qt::MatchExactly)) {
      item->setCheckState(Qt::Checked);
    }
  }
  form->addRow("Devices", devices_);

  dtype_ = dtype_combo(box, "capacity_dtype", "fp16");
  form->addRow("KV dtype", dtype_);
  tp_ = int_spin(box, "capacity_tp", 1, 256);
  form->addRow("TP", tp_);
  mem_fraction_ = new QDoubleSpinBox(box);
  mem_fraction_->setObjectName("capacity_mem_fraction");
  mem_fraction_->setRange(0.05, 1.0);
  mem_fraction_->setSingleStep(0.05);
  mem_fraction_->setDecimals(3);
  mem_fraction_->setValue(0.9);
  form->addRow("Memory fraction", mem_fraction_);
  block_size_ = int_spin(box, "capacity_block_size", 0, 4096);
  block_size_->setSpecialValueText("device default");
  form->addRow("Block size", block_size_);
  seq_len_ = int_spin(box, "capacity_seq_len", 0, 1 << 24);
  seq_len_->setSpecialValueText("model max");
  form->addRow("Sequence length", seq_len_);
  report_device_ = new QComboBox(box);
  report_device_->setObjectName("capacity_report_device");
  form->addRow("Formula for", report_device_);

  error_ = error_label(box, "capacity_error");
  auto* column = new QVBoxLayout(box);
  column->addLayout(form);
  column->addWidget(error_);
  column->addStretch(1);

  connect(model_, &QComboBox::currentTextChanged, this, &CapacityView::recompute);
  connect(devices_, &QListWidget::itemChanged, this, &CapacityView::recompute);
  connect(dtype_, &QComboBox::currentTextChanged, this, &CapacityView::recompute);
  connect(tp_, &QSpinBox::valueChanged, this, &CapacityView::recompute);
  connect(mem_fraction_, &QDoubleSpinBox::valueChanged, this, &CapacityView::recompute);
  connect(block_size_, &QSpinBox::valueChanged, this, &CapacityView::recompute);
  connect(seq_len_, &QSpinBox::valueChanged, this, &CapacityView::recompute);
  connect(report_device_, &QComboBox::currentIndexChanged, this, &CapacityView::show_report);
  return box;
}

CapacityViewInput CapacityView::input() const {
  CapacityViewInput in;
  in.model = model_->currentText().trimmed().toStdString();
  for (int i = 0; i < devices_->count(); ++i) {
    if (devices_->item(i)->checkState() == Qt::Checked) {
      in.devices.push_back(devices_->item(i)->text().toStdString());
    }
  }
  auto dtype = parse_dtype(dtype_->currentText().toStdString());
  in.query.kv.dtype = dtype.is_ok() ? *dtype : DType::kFp16;
  in.query.tp = static_cast<uint32_t>(tp_->value());
  in.engine.memory_utilization = mem_fraction_->value();
  in.query.block_size = static_cast<uint32_t>(block_size_->value());
  in.query.seq_len = static_cast<uint64_t>(seq_len_->value());
  return in;
}

void CapacityView::set_input(const CapacityViewInput& in) {
  updating_ = true;
  model_->setCurrentText(QString::fromStdString(in.model));
  for (int i = 0; i < devices_->count(); ++i) devices_->item(i)->setCheckState(Qt::Unchecked);
  for (const std::string& name : in.devices) {
    const QString text = QString::fromStdString(name);
    auto found = devices_->findItems(text, Qt::MatchExactly);
    QListWidgetItem* item = found.isEmpty() ? new QListWidgetItem(text, devices_) : found.front();
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Checked);
  }
  dtype_->setCurrentText(QString::fromStdString(std::string(dtype_name(in.query.kv.dtype))));
  tp_->setValue(static_cast<int>(in.query.tp));
  mem_fraction_->setValue(in.engine.memory_utilization.value_or(0.9));
  block_size_->setValue(static_cast<int>(in.query.block_size));
  seq_len_->setValue(static_cast<int>(in.query.seq_len));
  updating_ = false;
  recompute();
}

QString CapacityView::error_text() const { return error_->text(); }

QList<PlotPanel*> CapacityView::panels() const { return {memory_panel_, sequences_panel_}; }

void CapacityView::recompute() {
  if (updating_) return;
  auto answer = compute_capacity_view(input());
  if (!show_status(error_, answer.status())) return;
  data_ = std::move(answer).value();
  show_memory_breakdown(memory_panel_, *data_);
  show_max_sequences(sequences_panel_, *data_);
  const QString chosen = report_device_->currentText();
  report_device_->blockSignals(true);
  report_device_->clear();
  for (const DeviceCapacity& d : data_->devices) {
    report_device_->addItem(QString::fromStdString(d.device.name));
  }
  const int index = report_device_->findText(chosen);
  report_device_->setCurrentIndex(index >= 0 ? index : 0);
  report_device_->blockSignals(false);
  show_report();
}

void CapacityView::show_report() {
  const int index = report_device_->currentIndex();
  if (!data_ || index < 0 || index >= static_cast<int>(data_->devices.size())) return;
  report_->setPlainText(QString::fromStdString(data_->devices[static_cast<size_t>(index)].report));
}

}  // namespace kvsim::gui
