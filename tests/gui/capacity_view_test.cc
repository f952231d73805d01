// The Capacity view shows exactly what the library answers: the stacked bars are the memory
// split of plan_capacity()'s answer per device (GiB = bytes / 2^30), the max-sequences
// curves are max_batch_at_seq_len at each sequence length, the formula is capacity_report().
#include "gui/capacity_view.h"

#include <qcustomplot.h>

#include <QTest>

#include "core/base/units.h"
#include "core/engine/capacity.h"
#include "core/model/load_spec.h"
#include "core/report/capacity_report.h"
#include "gui/capacity_plots.h"
#include "gui/plot_panel.h"
#include "gui/plot_style.h"

using namespace kvsim;
using namespace kvsim::gui;

namespace {

CapacityViewInput nz_input() {
  CapacityViewInput in;
  in.model = "llama3-8b";
  in.devices = {"a100-80g", "ascend-310p3"};
  in.query.kv.dtype = DType::kFp16;
  in.query.tp = 1;
  in.engine.memory_utilization = 0.9;
  in.query.block_size = 20;  // not a multiple of 16: NZ pads 20 rows to 32 on the 310P
  return in;
}

QCustomPlot* plot_named(QWidget* view, const QString& name) {
  auto* plot = view->findChild<QCustomPlot*>(name);
  if (plot == nullptr) qFatal("no plot %s", qPrintable(name));
  return plot;
}

CapacityPlan library_plan(const CapacityViewInput& in, const std::string& device_name,
                          uint64_t seq_len) {
  const ModelSpec model = load_model(in.model).value();
  const DeviceSpec device = load_device(device_name).value();
  CapacityQuery query = in.query;
  query.seq_len = seq_len;
  return plan_capacity(model, &device, query, in.engine).value();
}

CapacityResult library_answer(const CapacityViewInput& in, const std::string& device_name,
                              uint64_t seq_len) {
  return library_plan(in, device_name, seq_len).capacity;
}

// The engine's set-aside terms of one kind, summed.
uint64_t set_aside(const CapacityPlan& plan, SetAsideKind kind) {
  uint64_t bytes = 0;
  for (const SetAsideTerm& term : plan.engine->terms) {
    if (term.kind == kind) bytes += term.bytes;
  }
  return bytes;
}

}  // namespace

class CapacityViewTest : public QObject {
  Q_OBJECT

 private slots:
  void starts_with_defaults_and_no_error() {
    CapacityView view;
    QVERIFY(view.error_text().isEmpty());
    QVERIFY(view.data().has_value());
    QVERIFY(view.data()->devices.size() >= 2);
  }

  void bars_hold_the_library_memory_split() {
    CapacityView view;
    const CapacityViewInput in = nz_input();
    view.set_input(in);
    QVERIFY(view.error_text().isEmpty());
    QCustomPlot* plot = plot_named(&view, "capacity_memory_plot");
    QCOMPARE(plot->plottableCount(), 9);
    for (size_t d = 0; d < in.devices.size(); ++d) {
      const CapacityPlan plan = library_plan(in, in.devices[d], 0);
      const CapacityResult& r = plan.capacity;
      const DeviceSpec device = load_device(in.devices[d]).value();
      const uint64_t blocks = r.num_blocks.value();
      const uint64_t terms[5] = {
          set_aside(plan, SetAsideKind::kWeights), set_aside(plan, SetAsideKind::kActivation),
          set_aside(plan, SetAsideKind::kNonTorch), set_aside(plan, SetAsideKind::kGraphs),
          set_aside(plan, SetAsideKind::kMeasured)};
      QCOMPARE(terms[0], r.weight_bytes.value());
      QVERIFY(terms[1] > 0 && terms[2] > 0);  // vLLM's profile run and its non-torch memory
      const uint64_t set_aside_total = terms[0] + terms[1] + terms[2] + terms[3] + terms[4];
      QCOMPARE(set_aside_total, plan.engine->set_aside_bytes);
      const uint64_t reserve = device.memory_bytes - plan.engine->total_bytes;
      const uint64_t expected[9] = {
          terms[0],
          terms[1],
          terms[2],
          terms[3],
          terms[4],
          blocks * r.kv_bytes_per_block_nd,
          blocks * (r.kv_bytes_per_block - r.kv_bytes_per_block_nd),
          reserve,
          device.memory_bytes - reserve - set_aside_total - blocks * r.kv_bytes_per_block};
      for (int s = 0; s < 9; ++s) {
        auto* bars = qobject_cast<QCPBars*>(plot->plottable(s));
        QVERIFY(bars != nullptr);
        QCOMPARE(bars->name(), QString(kMemorySegmentNames[static_cast<size_t>(s)]));
        QCOMPARE(bars->data()->size(), static_cast<int>(in.devices.size()));
        QCOMPARE(bars->data()->at(static_cast<int>(d))->value,
                 static_cast<double>(expected[s]) / kBytesPerGiB);
      }
    }
    // The 310P pads: its NZ padding bar is not empty; the A100 (ND) has none.
    auto* padding = qobject_cast<QCPBars*>(plot->plottable(6));
    QCOMPARE(padding->data()->at(0)->value, 0.0);
    QVERIFY(padding->data()->at(1)->value > 0.0);
  }

  // A deployment's measured set-aside replaces every term, the weights included: one
  // segment, and the bar still sums to the device's memory.
  void a_measured_set_aside_is_one_segment() {
    CapacityViewInput in = nz_input();
    in.engine.measured_set_aside_bytes = 20 * kGiB;
    const CapacityPlan plan = library_plan(in, "a100-80g", 0);
    const DeviceSpec device = load_device("a100-80g").value();
    const MemoryBreakdown m = memory_breakdown(device, plan);
    QCOMPARE(m.measured_bytes, 20 * kGiB);
    QCOMPARE(m.weights_bytes + m.activation_bytes + m.non_torch_bytes + m.graphs_bytes,
             uint64_t{0});
    // The driver's reserve: nominal 80 GiB less the runtime's 79.15 that the engine reads.
    QCOMPARE(m.driver_reserve_bytes, device.memory_bytes - device.runtime_memory_bytes);
    QCOMPARE(m.measured_bytes + m.kv_data_bytes + m.nz_padding_bytes + m.driver_reserve_bytes +
                 m.unused_bytes,
             device.memory_bytes);
  }

  void curves_hold_max_sequences_per_length() {
    CapacityView view;
    const CapacityViewInput in = nz_input();
    view.set_input(in);
    QCustomPlot* plot = plot_named(&view, "capacity_sequences_plot");
    QCOMPARE(plot->graphCount(), 2);
    const ModelSpec model = load_model(in.model).value();
    const std::vector<uint64_t> grid = seq_len_grid(model);
    QCOMPARE(grid.front(), uint64_t{128});
    QCOMPARE(grid.back(), uint64_t{model.max_position_embeddings});
    for (int d = 0; d < 2; ++d) {
      QCPGraph* graph = plot->graph(d);
      QCOMPARE(graph->name(), QString::fromStdString(in.devices[static_cast<size_t>(d)]));
      QCOMPARE(graph->data()->size(), static_cast<int>(grid.size()));
      for (size_t i = 0; i < grid.size(); ++i) {
        const CapacityResult r = library_answer(in, in.devices[static_cast<size_t>(d)], grid[i]);
        QCOMPARE(graph->data()->at(static_cast<int>(i))->key, static_cast<double>(grid[i]));
        QCOMPARE(graph->data()->at(static_cast<int>(i))->value,
                 static_cast<double>(r.max_batch_at_seq_len.value()));
      }
    }
  }

  void formula_is_the_cli_report() {
    CapacityView view;
    const CapacityViewInput in = nz_input();
    view.set_input(in);
    auto* text = view.findChild<QPlainTextEdit*>("capacity_report");
    const ModelSpec model = load_model(in.model).value();
    const DeviceSpec a100 = load_device("a100-80g").value();
    QCOMPARE(text->toPlainText().toStdString(),
             capacity_report(model, &a100, library_plan(in, "a100-80g", 0)));
    auto* chooser = view.findChild<QComboBox*>("capacity_report_device");
    chooser->setCurrentText("ascend-310p3");
    const DeviceSpec p310 = load_device("ascend-310p3").value();
    const std::string report = capacity_report(model, &p310, library_plan(in, "ascend-310p3", 0));
    QCOMPARE(text->toPlainText().toStdString(), report);
    QVERIFY(report.find("NZ layout pads") != std::string::npos);
  }

  void csv_holds_the_plotted_numbers() {
    CapacityView view;
    view.set_input(nz_input());
    const CsvTable& table = view.panels()[0]->table();
    QCOMPARE(table.rows.size(), size_t{2});
    QCOMPARE(table.header[7], std::string("kv_data_bytes"));
    const CapacityResult r = library_answer(nz_input(), "ascend-310p3", 0);
    QCOMPARE(table.rows[1][0], std::string("ascend-310p3"));
    QCOMPARE(table.rows[1][7], std::to_string(r.num_blocks.value() * r.kv_bytes_per_block_nd));
    QCOMPARE(table.header[11], std::string("num_blocks"));
    QCOMPARE(table.rows[1][11], std::to_string(r.num_blocks.value()));
  }

  void bad_input_shows_the_status_and_keeps_the_plots() {
    CapacityView view;
    view.set_input(nz_input());
    QCustomPlot* plot = plot_named(&view, "capacity_memory_plot");
    const double before = qobject_cast<QCPBars*>(plot->plottable(0))->data()->at(0)->value;
    CapacityViewInput bad = nz_input();
    bad.model = "llama3-8c";
    view.set_input(bad);
    QVERIFY(view.error_text().contains("llama3-8b"));  // the nearest valid name
    QCOMPARE(qobject_cast<QCPBars*>(plot->plottable(0))->data()->at(0)->value, before);
    CapacityViewInput tp = nz_input();
    tp.query.tp = 3;  // 8 KV heads do not split over 3 devices
    view.set_input(tp);
    QVERIFY(!view.error_text().isEmpty());
  }
};

QTEST_MAIN(CapacityViewTest)
#include "capacity_view_test.moc"
