// The Capacity view: pick a model, devices, KV dtype, TP, memory fraction, block size and
// sequence length; see each device's memory split as stacked bars, the maximum number of
// concurrent sequences versus sequence length, and the capacity formula with the numbers.
//
// The widget only gathers its controls into a CapacityViewInput, asks compute_capacity_view()
// (gui/capacity_model.h) and hands the answer to the plot controllers (gui/capacity_plots.h).
// It recomputes on every change; a bad input shows the Status message and keeps the last
// good plots.
#pragma once

#include <QStringList>
#include <QWidget>
#include <optional>

#include "gui/capacity_model.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QSpinBox;

namespace kvsim::gui {

class PlotPanel;

class CapacityView : public QWidget {
  Q_OBJECT

 public:
  explicit CapacityView(QWidget* parent = nullptr);

  // Sets every control at once (and recomputes once): used by --render and the tests.
  void set_input(const CapacityViewInput& input);
  CapacityViewInput input() const;

  // The last good answer, exactly as the library returned it (empty before the first).
  const std::optional<CapacityViewData>& data() const { return data_; }
  QString error_text() const;
  QList<PlotPanel*> panels() const;

 public slots:
  void recompute();

 private:
  QWidget* build_controls();
  void show_report();

  QComboBox* model_ = nullptr;
  QListWidget* devices_ = nullptr;
  QComboBox* dtype_ = nullptr;
  QSpinBox* tp_ = nullptr;
  QDoubleSpinBox* mem_fraction_ = nullptr;
  QSpinBox* block_size_ = nullptr;
  QSpinBox* seq_len_ = nullptr;
  QComboBox* report_device_ = nullptr;
  QLabel* error_ = nullptr;
  PlotPanel* memory_panel_ = nullptr;
  PlotPanel* sequences_panel_ = nullptr;
  QPlainTextEdit* report_ = nullptr;
  std::optional<CapacityViewData> data_;
  bool updating_ = false;  // set_input in progress: one recompute at the end
};

}  // namespace kvsim::gui
