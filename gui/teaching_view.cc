#include "gui/teaching_view.h"

#include <QHBoxLayout>
#include <QSplitter>

#include "gui/block_demo_view.h"
#include "gui/layout_view.h"

namespace kvsim::gui {

TeachingView::TeachingView(QWidget* parent) : QWidget(parent) {
  setObjectName("teaching_view");
  blocks_ = new BlockDemoView(this);
  layout_ = new LayoutView(this);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(blocks_);
  split->addWidget(layout_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({1000, 1000});  // half each, whatever the size hints say
  auto* box = new QHBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  box->addWidget(split);
}

}  // namespace kvsim::gui
