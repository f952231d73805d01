// The "Cache and layout" teaching view: the paged KV cache step by step (BlockDemoView) beside
// one block in the ND and NZ layouts (LayoutView). A container; each half is its own view.
#pragma once

#include <QWidget>

namespace kvsim::gui {

class BlockDemoView;
class LayoutView;

class TeachingView : public QWidget {
  Q_OBJECT

 public:
  explicit TeachingView(QWidget* parent = nullptr);

  BlockDemoView* block_demo_view() const { return blocks_; }
  LayoutView* layout_view() const { return layout_; }

 private:
  BlockDemoView* blocks_ = nullptr;
  LayoutView* layout_ = nullptr;
};

}  // namespace kvsim::gui
