// The ND/NZ drawing shows exactly the library's geometry: the colour-map cells are the grids of
// the BlockLayout, the picked element sits at the offsets BlockLayout computes (the numbers
// `kvsim layout --locate` prints), padding covers exactly nz_elements - nd_elements cells.
#include "gui/layout_view.h"

#include <qcustomplot.h>

#include <QPlainTextEdit>
#include <QTest>

#include "core/engine/capacity.h"
#include "core/model/load_spec.h"
#include "core/report/layout_report.h"
#include "gui/plot_panel.h"

using namespace kvsim;
using namespace kvsim::gui;

namespace {

LayoutViewInput padded_input() {
  LayoutViewInput in;
  in.model = "llama3-8b";
  in.device = "ascend-310p3";
  in.dtype = DType::kFp16;
  in.block_size = 20;
  in.token = 300;
  in.head = 2;
  in.dim = 5;
  return in;
}

QCPColorMap* color_map(QWidget* view, const QString& plot_name) {
  auto* plot = view->findChild<QCustomPlot*>(plot_name);
  if (plot == nullptr || plot->plottableCount() < 1)
    qFatal("no colour map in %s", qPrintable(plot_name));
  return qobject_cast<QCPColorMap*>(plot->plottable(0));
}

// The texts of a plot's text items.
QStringList item_texts(QCustomPlot* plot) {
  QStringList texts;
  for (int i = 0; i < plot->itemCount(); ++i) {
    if (auto* text = qobject_cast<QCPItemText*>(plot->item(i))) texts << text->text();
  }
  return texts;
}

int count_kind(const CellGrid& grid, CellKind kind) {
  return static_cast<int>(std::count(grid.cells.begin(), grid.cells.end(), kind));
}

}  // namespace

class LayoutViewTest : public QObject {
  Q_OBJECT

 private slots:
  void picked_element_sits_at_the_library_offsets() {
    LayoutView view;
    view.set_input(padded_input());
    QVERIFY2(view.error_text().isEmpty(), qPrintable(view.error_text()));
    const LayoutViewData& data = *view.data();
    const BlockLayout expected = block_layout(kv_shape(load_model("llama3-8b").value(), 1), 20, 16);
    QCOMPARE(data.layout.nz_elements(), expected.nz_elements());
    QCOMPARE(data.slot, 0u);  // 300 % 20
    QCOMPARE(data.block_index, uint64_t{15});
    QCOMPARE(data.nd_offset, uint64_t{261});  // as `kvsim layout --locate 300,2,5`
    QCOMPARE(data.nz_offset, uint64_t{8197});
    QCOMPARE(nd_cell_offset(data.layout, data.nd_picked), std::optional<uint64_t>(261));
    QCOMPARE(nz_cell_offset(data.layout, data.nz_picked), std::optional<uint64_t>(8197));
    QCOMPARE(data.nd.at(data.nd_picked.column, data.nd_picked.row), CellKind::kPicked);
    QCOMPARE(data.nz.at(data.nz_picked.column, data.nz_picked.row), CellKind::kPicked);
    QCOMPARE(count_kind(data.nd, CellKind::kPicked), 1);
    QCOMPARE(count_kind(data.nz, CellKind::kPicked), 1);
  }

  // The NZ panel names the element's real column (the grid draws a gap column between
  // fractals, so its x, 277 here, is not one) and draws the memory order: the path visits the
  // picked element's fractal row by row at consecutive offsets, then the next fractal's first.
  void panels_name_the_real_column_and_draw_the_nz_memory_order() {
    LayoutView view;
    view.set_input(padded_input());
    const LayoutViewData& data = *view.data();
    QCOMPARE(data.nz_picked.column, 277u);  // fractal 16 drawn at 16 x 17, plus 5
    const QString nz_text = QString::fromStdString(nz_pick_text(data));
    QCOMPARE(nz_text, QString("picked element: column 261 = fractal 16, column 5 of its 16; "
                              "row 0; offset 8197 elements"));
    QCOMPARE(QString::fromStdString(nd_pick_text(data)),
             QString("picked element: column 261 (head 2 x 128 + dim 5), row 0, offset 261 "
                     "elements"));
    auto* nz_plot = view.findChild<QCustomPlot*>("layout_nz_plot");
    QVERIFY(nz_plot != nullptr);
    QVERIFY(item_texts(nz_plot).contains(nz_text));
    const std::vector<GridCell> path = nz_memory_path(data);
    QCOMPARE(path.size(), size_t{16 * 32 + 1});  // n0 x padded_block (20 -> 32), then the next
    for (size_t i = 1; i < path.size(); ++i) {
      QCOMPARE(*nz_cell_offset(data.layout, path[i]),
               *nz_cell_offset(data.layout, path[i - 1]) + 1);
    }
    QCPCurve* curve = nullptr;
    for (int i = 0; i < nz_plot->plottableCount(); ++i) {
      if (auto* c = qobject_cast<QCPCurve*>(nz_plot->plottable(i))) curve = c;
    }
    QVERIFY(curve != nullptr);
    QCOMPARE(curve->name(), QString("memory order"));
    QCOMPARE(curve->dataCount(), 16 * 32);
  }

  void every_nz_cell_offset_is_where_the_layout_puts_it() {
    LayoutView view;
    view.set_input(padded_input());
    const LayoutViewData& data = *view.data();
    const BlockLayout& l = data.layout;
    // Every ND element appears in the NZ grid at the offset nz_offset() gives.
    for (uint32_t slot = 0; slot < l.block_size; slot += 7) {
      for (uint32_t head = 0; head < l.kv_heads; ++head) {
        for (uint32_t dim = 0; dim < l.head_dim; dim += 13) {
          QCOMPARE(nz_cell_offset(l, nz_cell(l, slot, head, dim)),
                   std::optional<uint64_t>(l.nz_offset(slot, head, dim)));
          QCOMPARE(nd_cell_offset(l, nd_cell(l, slot, head, dim)),
                   std::optional<uint64_t>(l.nd_offset(slot, head, dim)));
        }
      }
    }
    QCOMPARE(count_kind(data.nz, CellKind::kPadding),
             static_cast<int>(l.nz_elements() - l.nd_elements()));
    QCOMPARE(count_kind(data.nd, CellKind::kPadding), 0);
  }

  void colour_maps_hold_the_grids() {
    LayoutView view;
    view.set_input(padded_input());
    const LayoutViewData& data = *view.data();
    for (const auto& [name, grid] : {std::pair{QString("layout_nd_plot"), &data.nd},
                                     std::pair{QString("layout_nz_plot"), &data.nz}}) {
      QCPColorMap* map = color_map(&view, name);
      QCOMPARE(map->data()->keySize(), static_cast<int>(grid->width));
      QCOMPARE(map->data()->valueSize(), static_cast<int>(grid->height));
      for (uint32_t row = 0; row < grid->height; ++row) {
        for (uint32_t column = 0; column < grid->width; ++column) {
          QCOMPARE(map->data()->cell(static_cast<int>(column), static_cast<int>(row)),
                   static_cast<double>(grid->at(column, row)));
        }
      }
    }
    QCOMPARE(data.nd.width, 1024u);
    QCOMPARE(data.nd.height, 20u);
    QCOMPARE(data.nz.width, 64u * 17u - 1u);
    QCOMPARE(data.nz.height, 32u);
  }

  void text_is_the_cli_text_and_csv_lists_every_cell() {
    LayoutView view;
    view.set_input(padded_input());
    const LayoutViewData& data = *view.data();
    auto* text = view.findChild<QPlainTextEdit*>("layout_text");
    QCOMPARE(text->toPlainText().toStdString(),
             layout_report(data.model, DType::kFp16, data.layout, LayoutPick{300, 2, 5}));
    const CsvTable& nz = view.panels()[1]->table();
    QCOMPARE(nz.rows.size(), size_t{data.nz.width} * data.nz.height);
    const size_t picked = size_t{data.nz_picked.row} * data.nz.width + data.nz_picked.column;
    QCOMPARE(nz.rows[picked][2], std::string("picked"));
    QCOMPARE(nz.rows[picked][3], std::string("8197"));
    QCOMPARE(nz.rows[16][2], std::string("gap"));  // column n0 separates fractal columns
    QCOMPARE(nz.rows[16][3], std::string());
  }

  void element_outside_the_block_is_an_error() {
    LayoutView view;
    LayoutViewInput in = padded_input();
    in.model = "deepseek-r1";  // MLA: one latent "head" of 576
    in.head = 1;
    view.set_input(in);
    QVERIFY(view.error_text().contains("head < 1"));
  }
};

QTEST_MAIN(LayoutViewTest)
#include "layout_view_test.moc"
