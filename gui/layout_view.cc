#include "gui/layout_view.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include "gui/form_widgets.h"
#include "gui/layout_plots.h"
#include "gui/plot_panel.h"

namespace kvsim::gui {
namespace {

const char* const kDefaultModel = "llama3-8b";
const char* const kDefaultDevice = "ascend-310p3";
const char* const kNoDevice = "(none)";

const char* const kLegendHtml =
    "<span style='color:#9ecae1'>&#9632;</span> even head &nbsp; "
    "<span style='color:#3182bd'>&#9632;</span> odd head &nbsp; "
    "<span style='color:#ef6548'>&#9632;</span> NZ padding &nbsp; "
    "<span style='color:#ffd700'>&#9632;</span> picked element (framed)";

}  // namespace

LayoutView::LayoutView(QWidget* parent) : QWidget(parent) {
  setObjectName("layout_view");
  nd_panel_ = new PlotPanel("layout_nd", "ND block [block_size, kv_heads, head_dim]", this);
  nz_panel_ = new PlotPanel(
      "layout_nz", "NZ block [ceil(C/n0), ceil(block_size/16)*16, n0], C = kv_heads x head_dim",
      this);
  text_ = new QPlainTextEdit(this);
  text_->setObjectName("layout_text");
  text_->setReadOnly(true);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  auto* legend = new QLabel(kLegendHtml, this);

  auto* right = new QSplitter(Qt::Vertical, this);
  right->addWidget(nd_panel_);
  right->addWidget(nz_panel_);
  right->addWidget(text_);
  right->setStretchFactor(0, 2);
  right->setStretchFactor(1, 2);
  right->setStretchFactor(2, 1);
  auto* column = new QVBoxLayout;
  column->addWidget(legend);
  column->addWidget(right, 1);
  auto* layout = new QHBoxLayout(this);
  layout->addWidget(build_controls());
  layout->addLayout(column, 1);
  recompute();
}

QWidget* LayoutView::build_controls() {
  auto* box = new QWidget(this);
  box->setMaximumWidth(260);
  auto* form = new QFormLayout;
  model_ = preset_combo(box, PresetKind::kModel, "layout_model", kDefaultModel);
  form->addRow("Model", model_);
  device_ = preset_combo(box, PresetKind::kDevice, "layout_device", kDefaultDevice);
  device_->insertItem(0, kNoDevice);
  form->addRow("Device", device_);
  dtype_ = dtype_combo(box, "layout_dtype", "fp16");
  form->addRow("KV dtype", dtype_);
  block_size_ = int_spin(box, "layout_block_size", 0, 1024);
  block_size_->setSpecialValueText("device default");
  form->addRow("Block size", block_size_);
  token_ = int_spin(box, "layout_token", 0, 1 << 24);
  form->addRow("Token", token_);
  head_ = int_spin(box, "layout_head", 0, 0);
  form->addRow("KV head", head_);
  dim_ = int_spin(box, "layout_dim", 0, 0);
  form->addRow("Dim", dim_);
  error_ = error_label(box, "layout_error");
  auto* column = new QVBoxLayout(box);
  column->addLayout(form);
  column->addWidget(error_);
  column->addStretch(1);

  connect(model_, &QComboBox::currentTextChanged, this, &LayoutView::recompute);
  connect(device_, &QComboBox::currentTextChanged, this, &LayoutView::recompute);
  connect(dtype_, &QComboBox::currentTextChanged, this, &LayoutView::recompute);
  for (QSpinBox* box_ : {block_size_, token_, head_, dim_}) {
    connect(box_, &QSpinBox::valueChanged, this, &LayoutView::recompute);
  }
  return box;
}

LayoutViewInput LayoutView::input() const {
  LayoutViewInput in;
  in.model = model_->currentText().trimmed().toStdString();
  const QString device = device_->currentText().trimmed();
  in.device = device == kNoDevice ? std::string() : device.toStdString();
  auto dtype = parse_dtype(dtype_->currentText().toStdString());
  in.dtype = dtype.is_ok() ? *dtype : DType::kFp16;
  in.block_size = static_cast<uint32_t>(block_size_->value());
  in.token = static_cast<uint64_t>(token_->value());
  in.head = static_cast<uint32_t>(head_->value());
  in.dim = static_cast<uint32_t>(dim_->value());
  return in;
}

void LayoutView::set_input(const LayoutViewInput& in) {
  updating_ = true;
  model_->setCurrentText(QString::fromStdString(in.model));
  device_->setCurrentText(in.device.empty() ? QString(kNoDevice)
                                            : QString::fromStdString(in.device));
  dtype_->setCurrentText(QString::fromStdString(std::string(dtype_name(in.dtype))));
  block_size_->setValue(static_cast<int>(in.block_size));
  token_->setValue(static_cast<int>(in.token));
  head_->setMaximum(std::max(head_->maximum(), static_cast<int>(in.head)));
  dim_->setMaximum(std::max(dim_->maximum(), static_cast<int>(in.dim)));
  head_->setValue(static_cast<int>(in.head));
  dim_->setValue(static_cast<int>(in.dim));
  updating_ = false;
  recompute();
}

QString LayoutView::error_text() const { return error_->text(); }

QList<PlotPanel*> LayoutView::panels() const { return {nd_panel_, nz_panel_}; }

void LayoutView::recompute() {
  if (updating_) return;
  auto answer = compute_layout_view(input());
  if (!show_status(error_, answer.status())) return;
  data_ = std::move(answer).value();
  updating_ = true;
  head_->setMaximum(static_cast<int>(data_->layout.kv_heads) - 1);
  dim_->setMaximum(static_cast<int>(data_->layout.head_dim) - 1);
  updating_ = false;
  show_nd_block(nd_panel_, *data_);
  show_nz_block(nz_panel_, *data_);
  text_->setPlainText(QString::fromStdString(data_->explanation));
}

}  // namespace kvsim::gui
