// The block-grid half of the "Cache and layout" teaching view: the scripted
// `kvsim blocks --demo` scenario with a step slider. Each step shows what the scheduler did and
// why it matters, the pool as a grid (gui/block_grid_plots.h), the free queue in order, the
// cache's events and its counters.
//
// The widget asks compute_block_grid() (gui/block_grid_model.h) once per eviction policy and
// hands the chosen step to the plot controller; moving the slider computes nothing.
#pragma once

#include <QWidget>
#include <optional>

#include "gui/block_grid_model.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSlider;

namespace kvsim::gui {

class PlotPanel;

class BlockDemoView : public QWidget {
  Q_OBJECT

 public:
  explicit BlockDemoView(QWidget* parent = nullptr);

  void set_eviction(EvictionKind eviction);
  void set_step(int step);  // 0-based
  int step() const;

  const std::optional<BlockGridData>& data() const { return data_; }
  QString error_text() const;
  PlotPanel* panel() const { return panel_; }

 private slots:
  void rerun();
  void show_step();

 private:
  QComboBox* eviction_ = nullptr;
  QSlider* slider_ = nullptr;
  QLabel* step_label_ = nullptr;
  QLabel* action_ = nullptr;
  QLabel* note_ = nullptr;
  QLabel* stats_ = nullptr;
  QLabel* error_ = nullptr;
  PlotPanel* panel_ = nullptr;
  QPlainTextEdit* events_ = nullptr;
  std::optional<BlockGridData> data_;
};

}  // namespace kvsim::gui
