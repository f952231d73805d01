// The ND/NZ half of the "Cache and layout" teaching view: pick a model, device, KV dtype and
// block size and an element (token, head, dim); see one layer's K (or V) block cell by cell in
// the ND and NZ layouts with the padding marked and the picked element framed in both, and the
// `kvsim layout` text with both offset formulas.
//
// The widget gathers its controls into a LayoutViewInput, asks compute_layout_view()
// (gui/layout_model.h) and hands the answer to the controllers of gui/layout_plots.h. The head
// and dim spin boxes are bounded by the answer's kv_heads and head_dim.
#pragma once

#include <QWidget>
#include <optional>

#include "gui/layout_model.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSpinBox;

namespace kvsim::gui {

class PlotPanel;

class LayoutView : public QWidget {
  Q_OBJECT

 public:
  explicit LayoutView(QWidget* parent = nullptr);

  void set_input(const LayoutViewInput& input);
  LayoutViewInput input() const;

  const std::optional<LayoutViewData>& data() const { return data_; }
  QString error_text() const;
  QList<PlotPanel*> panels() const;

 public slots:
  void recompute();

 private:
  QWidget* build_controls();

  QComboBox* model_ = nullptr;
  QComboBox* device_ = nullptr;
  QComboBox* dtype_ = nullptr;
  QSpinBox* block_size_ = nullptr;
  QSpinBox* token_ = nullptr;
  QSpinBox* head_ = nullptr;
  QSpinBox* dim_ = nullptr;
  QLabel* error_ = nullptr;
  PlotPanel* nd_panel_ = nullptr;
  PlotPanel* nz_panel_ = nullptr;
  QPlainTextEdit* text_ = nullptr;
  std::optional<LayoutViewData> data_;
  bool updating_ = false;
};

}  // namespace kvsim::gui
