// The block grid shows exactly the steps run_block_demo() returns (the `kvsim blocks --demo`
// scenario): per block its state, ref count and owners; the free queue in order; the step's
// prefix hits and evictions marked; the slider picks the step.
#include "gui/block_demo_view.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QTest>

#include "core/cache/block_demo.h"
#include "gui/block_grid_plots.h"
#include "gui/plot_panel.h"

using namespace kvsim;
using namespace kvsim::gui;

namespace {

template <typename Item>
Item* item_named(QCustomPlot* plot, const QString& name) {
  for (int i = 0; i < plot->itemCount(); ++i) {
    if (plot->item(i)->objectName() == name) return qobject_cast<Item*>(plot->item(i));
  }
  return nullptr;
}

bool has_event(const DemoStep& step, CacheEventKind kind, BlockId block) {
  for (const CacheEvent& e : step.events) {
    if (e.kind == kind && e.block == block) return true;
  }
  return false;
}

}  // namespace

class BlockDemoViewTest : public QObject {
  Q_OBJECT

 private slots:
  void every_step_draws_the_library_state() {
    BlockDemoView view;
    QVERIFY(view.error_text().isEmpty());
    const BlockDemo demo = run_block_demo(EvictionKind::kLru).value();
    QCOMPARE(view.data()->steps.size(), demo.steps.size());
    QCustomPlot* plot = view.panel()->plot();
    int hits = 0;
    int evictions = 0;
    for (size_t s = 0; s < demo.steps.size(); ++s) {
      view.set_step(static_cast<int>(s));
      const DemoStep& step = demo.steps[s];
      const BlockGridStep& drawn = view.data()->steps[s];
      QCOMPARE(drawn.cells.size(), step.blocks.size());
      for (const DemoBlock& block : step.blocks) {
        const BlockCell& cell = drawn.cells[block.id];
        QCOMPARE(cell.ref_count, block.ref_count);
        QCOMPARE(cell.state, demo_block_state(block));
        QCOMPARE(cell.marks.hit, has_event(step, CacheEventKind::kHit, block.id));
        QCOMPARE(cell.marks.evicted, has_event(step, CacheEventKind::kEvict, block.id));
        hits += cell.marks.hit;
        evictions += cell.marks.evicted;
        auto* rect = item_named<QCPItemRect>(plot, QString("block_%1").arg(block.id));
        QVERIFY(rect != nullptr);
        QCOMPARE(rect->brush().color(), block_fill(cell));
        auto* label = item_named<QCPItemText>(plot, QString("label_%1").arg(block.id));
        QCOMPARE(label->text(), block_label(cell));
        QVERIFY(label->text().startsWith(
            QString("block %1\nref %2").arg(block.id).arg(block.ref_count)));
      }
      // Owners: exactly the live requests whose block table holds the block.
      for (const DemoRequest& request : step.requests) {
        for (BlockId entry : request.block_table) {
          if (!holds_block(entry)) continue;
          const auto& owners = drawn.cells[entry].owners;
          QVERIFY(std::find(owners.begin(), owners.end(), request.id) != owners.end());
        }
      }
      // The free queue, in order.
      for (size_t i = 0; i < step.free_queue.size(); ++i) {
        auto* label = item_named<QCPItemText>(plot, QString("queue_label_%1").arg(i));
        QVERIFY(label != nullptr);
        QCOMPARE(label->text(), QString::number(step.free_queue[i]));
        QCOMPARE(drawn.cells[step.free_queue[i]].free_position, std::optional<uint32_t>(i));
      }
      QVERIFY(item_named<QCPItemText>(
                  plot, QString("queue_label_%1").arg(step.free_queue.size())) == nullptr);
      QCOMPARE(view.panel()->table().rows.size(), step.blocks.size());
      auto* action = view.findChild<QLabel*>("blocks_action");
      QVERIFY(action->text().contains(QString::fromStdString(step.action).toHtmlEscaped()));
    }
    // The scenario has prefix hits and evictions (steps 2, 8, 10), and the grid marks them.
    QVERIFY(hits >= 3);
    QVERIFY(evictions >= 1);
  }

  void evicted_blocks_get_a_red_dashed_border() {
    BlockDemoView view;
    const BlockDemo demo = run_block_demo(EvictionKind::kLru).value();
    for (size_t s = 0; s < demo.steps.size(); ++s) {
      for (const CacheEvent& e : demo.steps[s].events) {
        if (e.kind != CacheEventKind::kEvict) continue;
        view.set_step(static_cast<int>(s));
        auto* rect =
            item_named<QCPItemRect>(view.panel()->plot(), QString("block_%1").arg(e.block));
        QCOMPARE(rect->pen().style(), Qt::DashLine);
        QCOMPARE(rect->pen().color(), QColor(200, 0, 0));
        return;
      }
    }
    QFAIL("the demo has no eviction");
  }

  void eviction_policy_reruns_the_demo() {
    BlockDemoView view;
    view.set_step(9);
    view.set_eviction(EvictionKind::kFifo);
    QCOMPARE(view.data()->eviction, EvictionKind::kFifo);
    const BlockDemo fifo = run_block_demo(EvictionKind::kFifo).value();
    QCOMPARE(view.step(), 9);
    QCOMPARE(view.data()->steps[9].free_queue, fifo.steps[9].free_queue);
  }
};

QTEST_MAIN(BlockDemoViewTest)
#include "block_demo_view_test.moc"
