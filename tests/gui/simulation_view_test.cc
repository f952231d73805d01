// The Simulation view: a run on the worker thread completes and each chart holds exactly what
// the library returned (the series are timeseries.csv's columns of the same scenario run by
// run_simulation(), the CDFs' medians are the summary's, the table is summary.json); Cancel
// stops a long run (within 5 s); the event loop never stalls for 100 ms during a run; two runs
// overlay; the edited scenario saves back to YAML that loads to the same scenario. The timing_
// functions measure wall clock and run apart from the others (tests/gui/test_main.h).
#include "gui/simulation_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QElapsedTimer>
#include <QSet>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "gui/csv_table.h"
#include "gui/job_runner.h"
#include "gui/plot_panel.h"
#include "gui/plot_style.h"
#include "simulator/simulation.h"
#include "tests/gui/event_loop_probe.h"
#include "tests/gui/test_main.h"

using namespace kvsim;
using namespace kvsim::gui;

namespace {

constexpr int kRunTimeoutMs = 120000;

QCustomPlot* plot_of(SimulationView& view, const QString& panel_name) {
  for (PlotPanel* panel : view.panels()) {
    if (panel->name() == panel_name) return panel->plot();
  }
  qFatal("no panel %s", qPrintable(panel_name));
}

QCPGraph* graph_named(QCustomPlot* plot, const QString& name) {
  for (int i = 0; i < plot->graphCount(); ++i) {
    if (plot->graph(i)->name() == name) return plot->graph(i);
  }
  return nullptr;
}

std::vector<double> values_of(QCPGraph* graph) {
  std::vector<double> out;
  for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
    out.push_back(it->value);
  }
  return out;
}

std::vector<double> keys_of(QCPGraph* graph) {
  std::vector<double> out;
  for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
    out.push_back(it->key);
  }
  return out;
}

// timeseries.csv as {header name, column of doubles}, in the file's order (the file writes
// shortest round-trip numbers).
std::vector<std::pair<std::string, std::vector<double>>> read_columns(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::pair<std::string, std::vector<double>>> columns;
  std::stringstream names(line);
  for (std::string name; std::getline(names, name, ',');) columns.push_back({name, {}});
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    size_t i = 0;
    for (std::string cell; std::getline(cells, cell, ',') && i < columns.size(); ++i) {
      double value = 0;
      std::from_chars(cell.data(), cell.data() + cell.size(), value);
      columns[i].second.push_back(value);
    }
  }
  return columns;
}

// The default scenario with `requests` synthetic requests, as a YAML file in `dir`.
QString scenario_file(const QTemporaryDir& dir, uint64_t requests) {
  auto tree = sim::load_scenario_tree(
      "default", {"workload.synthetic.num_requests=" + std::to_string(requests)});
  const QString path = dir.filePath("big.yaml");
  if (!tree.is_ok() || !save_scenario(*tree, path.toStdString()).is_ok()) qFatal("cannot write");
  return path;
}

bool wait_for_run(SimulationView& view, JobRunner& runner, size_t runs) {
  QSignalSpy finished(&runner, &JobRunner::finished);
  if (!view.run()) return false;
  return finished.wait(kRunTimeoutMs) && view.runs().size() == runs;
}

// Opens the default scenario with at most `max_requests` requests and runs it once.
bool run_default(SimulationView& view, JobRunner& runner, const char* max_requests) {
  if (!view.open("default")) return false;
  view.set_field("workload.max_requests", max_requests);
  return wait_for_run(view, runner, 1);
}

}  // namespace

class SimulationViewTest : public QObject {
  Q_OBJECT

 private slots:
  void run_completes_and_charts_hold_what_the_library_returned() {
    JobRunner runner;
    SimulationView view(&runner);
    QVERIFY(run_default(view, runner, "600"));
    const SimRun& run = view.runs()[0];

    // The same scenario through run_simulation(), files written: the reference.
    QTemporaryDir dir;
    auto scenario = sim::load_scenario("default", {"workload.max_requests=600"}).value();
    auto setup = sim::prepare_simulation(scenario).value();
    sim::RunOptions options;
    options.out_dir = dir.path().toStdString();
    const sim::Summary summary = sim::run_simulation(setup, options).value();
    QCOMPARE(sim::summary_to_json(run.summary, false).dump(),
             sim::summary_to_json(summary, false).dump());
    const auto columns = read_columns(dir.filePath("timeseries.csv").toStdString());
    // The series are the file's columns, under the file's names, in its order.
    QCOMPARE(columns.size(), size_t{8});
    QCOMPARE(run.series.columns.size(), columns.size());
    for (size_t i = 0; i < columns.size(); ++i) {
      QCOMPARE(run.series.column(columns[i].first), columns[i].second);
      QCOMPARE(run.series.columns[i], columns[i].second);
    }
    QCOMPARE(run.ttft_s.size(), size_t{summary.ttft_s.count});
    QCOMPARE(sim::quantile_sorted(run.ttft_s, 0.5), summary.ttft_s.p50);
    QCOMPARE(sim::quantile_sorted(run.tpot_s, 0.99), summary.tpot_s.p99);

    // The series charts' tables name their columns as the file does (the GUI's extra
    // output_tokens_per_s aside) and hold the run's series.
    for (PlotPanel* panel : view.panels()) {
      if (panel->name() != "memory" && panel->name() != "requests" &&
          panel->name() != "throughput") {
        continue;
      }
      const CsvTable& table = panel->table();
      QCOMPARE(table.header[1], columns[0].first);  // time_s
      for (size_t c = 2; c < table.header.size(); ++c) {
        const std::string& name = table.header[c];
        const bool in_file =
            std::any_of(columns.begin(), columns.end(),
                        [&name](const auto& column) { return column.first == name; });
        QVERIFY2(in_file || name == "output_tokens_per_s", name.c_str());
        QCOMPARE(table.rows.back()[c], csv_number(run.series.column(name).back()));
      }
    }

    // Each chart holds exactly the run's data.
    QCustomPlot* kv = plot_of(view, "memory");
    QCOMPARE(keys_of(graph_named(kv, "A used")), run.series.time_s());
    QCOMPARE(values_of(graph_named(kv, "A used")), run.series.column("kv_blocks_used"));
    const std::vector<double> stacked = values_of(graph_named(kv, "A used + cached free"));
    for (size_t i = 0; i < stacked.size(); ++i) {
      QCOMPARE(stacked[i] - run.series.column("kv_blocks_used")[i],
               run.series.column("kv_blocks_cached_free")[i]);
    }
    QCOMPARE(values_of(graph_named(kv, "A pool (+ free)")).front(),
             static_cast<double>(summary.info.num_usable_blocks));  // less the null block
    QCustomPlot* requests = plot_of(view, "requests");
    QCOMPARE(values_of(graph_named(requests, "A running")), run.series.column("running"));
    QCOMPARE(values_of(graph_named(requests, "A waiting")), run.series.column("waiting"));
    QCOMPARE(values_of(graph_named(requests, "A swapped")), run.series.column("swapped"));
    QCustomPlot* throughput = plot_of(view, "throughput");
    QCOMPARE(values_of(graph_named(throughput, "A output tokens/s")),
             run.series.output_tokens_per_s);
    QCustomPlot* latency = plot_of(view, "latency");
    QCOMPARE(latency->axisRectCount(), 2);
    QCPGraph* ttft = latency->axisRect(0)->graphs().front();
    QCPGraph* tpot = latency->axisRect(1)->graphs().front();
    QCOMPARE(keys_of(ttft), run.ttft_s);
    QCOMPARE(keys_of(tpot), run.tpot_s);
    QCOMPARE(values_of(ttft).back(), 1.0);

    // Output tokens over the run = the summary's output tokens.
    double output_tokens = 0;
    for (double rate : run.series.output_tokens_per_s) output_tokens += rate * 1.0;  // 1 s rows
    QCOMPARE(output_tokens, static_cast<double>(summary.output_tokens));

    // The table is summary.json, row by row.
    const auto fields = summary_fields(summary);
    QCOMPARE(view.summary_table()->rowCount(), static_cast<int>(fields.size()));
    for (size_t i = 0; i < fields.size(); ++i) {
      QCOMPARE(view.summary_table()->item(static_cast<int>(i), 0)->text().toStdString(),
               fields[i].first);
      QCOMPARE(view.summary_table()->item(static_cast<int>(i), 1)->text().toStdString(),
               fields[i].second);
    }
  }

  void timing_cancel_stops_a_long_run() {
    QTemporaryDir dir;
    const QString path = scenario_file(dir, 2000000);  // minutes of work uncancelled
    JobRunner runner;
    SimulationView view(&runner);
    QVERIFY2(view.open(path), qPrintable(view.error_text()));
    QSignalSpy finished(&runner, &JobRunner::finished);
    QVERIFY(view.run());
    QTest::qWait(300);
    QVERIFY(runner.is_running());
    QElapsedTimer clock;
    clock.start();
    runner.cancel();
    QVERIFY(finished.wait(20000));
    // The run stops at its next progress check (milliseconds); 5 s is a margin for a loaded
    // machine, and far below the minutes an ignored cancel takes.
    QVERIFY2(clock.elapsed() < 5000, qPrintable(QString("cancel took %1 ms").arg(clock.elapsed())));
    qInfo("cancel took %lld ms", clock.elapsed());
    QVERIFY(finished[0][2].toBool());  // cancelled
    QVERIFY(view.runs().empty());
    QVERIFY(view.error_text().contains("cancelled"));
  }

  void timing_event_loop_is_never_blocked_for_100ms() {
    QTemporaryDir dir;
    const QString path = scenario_file(dir, 60000);  // about a second of simulation
    JobRunner runner;
    SimulationView view(&runner);
    view.resize(1400, 900);
    view.show();
    QVERIFY(view.open(path));
    testing::EventLoopProbe probe;
    QSignalSpy finished(&runner, &JobRunner::finished);
    QVERIFY(view.run());
    QVERIFY(finished.wait(kRunTimeoutMs));
    QTest::qWait(50);  // the plots are drawn in the finished handler: include them
    const qint64 run_ms = probe.elapsed_ms();
    QCOMPARE(view.runs().size(), size_t{1});
    QVERIFY2(probe.max_blocked_ms() < testing::kMaxEventLoopGapMs,
             qPrintable(QString("event loop blocked %1 ms (gap %2 ms with the run-queue wait) "
                                "during a %3 ms run")
                            .arg(probe.max_blocked_ms())
                            .arg(probe.max_gap_ms())
                            .arg(run_ms)));
    QVERIFY(probe.ticks() > 10);
    qInfo("run of %lld ms, longest event-loop gap %lld ms (%lld ms blocked), %d ticks", run_ms,
          probe.max_gap_ms(), probe.max_blocked_ms(), probe.ticks());
  }

  // Every chart has a title and a legend of at least kLegendPointSize; the cost chart gives
  // each operator a colour of its own (it cycled 8 colours over ~17 operators).
  void charts_carry_titles_readable_legends_and_distinct_operator_colours() {
    JobRunner runner;
    SimulationView view(&runner);
    QVERIFY(run_default(view, runner, "300"));
    for (PlotPanel* panel : view.panels()) {
      QVERIFY2(!plot_title(panel->plot()).isEmpty(), qPrintable(panel->name() + " has no title"));
      QVERIFY2(panel->plot()->legend->font().pointSize() >= kLegendPointSize,
               qPrintable(panel->name()));
    }
    QCustomPlot* cost = plot_of(view, "cost");
    QSet<QRgb> colours;
    int bars = 0;
    for (int i = 0; i < cost->plottableCount(); ++i) {
      if (auto* b = qobject_cast<QCPBars*>(cost->plottable(i))) {
        colours.insert(b->brush().color().rgb());
        ++bars;
      }
    }
    QVERIFY(bars > 8);
    QCOMPARE(colours.size(), bars);
  }

  void two_runs_overlay() {
    JobRunner runner;
    SimulationView view(&runner);
    QVERIFY(view.open("default"));
    view.set_field("workload.max_requests", "400");
    QVERIFY(wait_for_run(view, runner, 1));
    view.set_field("cache.prefix_caching", "false");
    QVERIFY(wait_for_run(view, runner, 2));
    view.select_runs(1, 0);
    QCustomPlot* kv = plot_of(view, "memory");
    QCOMPARE(values_of(graph_named(kv, "A used")), view.runs()[1].series.column("kv_blocks_used"));
    QCOMPARE(values_of(graph_named(kv, "B used")), view.runs()[0].series.column("kv_blocks_used"));
    QCOMPARE(graph_named(kv, "B used")->pen().style(), Qt::DashLine);
    // Without prefix caching nothing is cached free; with it, something was.
    double cached_a = 0;
    double cached_b = 0;
    for (double v : view.runs()[1].series.column("kv_blocks_cached_free")) cached_a += v;
    for (double v : view.runs()[0].series.column("kv_blocks_cached_free")) cached_b += v;
    QCOMPARE(cached_a, 0.0);
    QVERIFY(cached_b > 0.0);
    QVERIFY(view.summary_table()->item(0, 2) != nullptr);
    QVERIFY(!view.summary_table()->item(0, 2)->text().isEmpty());
    view.select_runs(0, -1);
    QVERIFY(graph_named(kv, "B used") == nullptr);
  }

  void edits_save_back_to_yaml() {
    JobRunner runner;
    SimulationView view(&runner);
    QVERIFY(view.open("default"));
    view.set_field("cache.mem_fraction", "0.8");
    view.set_field("cache.eviction", "fifo");
    QTemporaryDir dir;
    const QString path = dir.filePath("edited.yaml");
    const Status saved = view.save_to(path);
    QVERIFY2(saved.is_ok(), saved.message().c_str());
    const sim::Scenario edited = sim::load_scenario(path.toStdString(), {}).value();
    const sim::Scenario preset = sim::load_scenario("default", {}).value();
    QCOMPARE(edited.cache.mem_fraction, 0.8);
    QCOMPARE(edited.cache.eviction, EvictionKind::kFifo);
    QCOMPARE(edited.cache.block_size, preset.cache.block_size);
    QCOMPARE(edited.workload.synthetic.num_requests, preset.workload.synthetic.num_requests);
    // The saved file opens in the view with the edits.
    QVERIFY(view.open(path));
    QCOMPARE(field_texts(view.document()->scenario)[6], std::string("0.8"));
  }

  // Every value a combo box of the form offers loads in a scenario and reads back as itself:
  // the combos list the loader's own name tables (eviction offered "none", which the
  // loader rejected).
  void every_offered_choice_loads_and_reads_back() {
    JobRunner runner;
    SimulationView view(&runner);
    QTemporaryDir dir;
    const std::vector<ScenarioField>& fields = scenario_main_fields();
    int checked = 0;
    for (size_t i = 0; i < fields.size(); ++i) {
      const QString key = QString::fromStdString(fields[i].key);
      const auto* combo = view.findChild<QComboBox*>("sim_field_" + key);
      if (fields[i].choices.empty()) {
        QVERIFY2(combo == nullptr, qPrintable(key));
        continue;
      }
      QVERIFY2(combo != nullptr, qPrintable(key));
      QCOMPARE(combo->count(), static_cast<int>(fields[i].choices.size()));
      for (int item = 0; item < combo->count(); ++item) {
        QVERIFY(view.open("default"));
        const QString choice = combo->itemText(item);
        view.set_field(key, choice);
        const QString path = dir.filePath(QString("choice-%1-%2.yaml").arg(i).arg(item));
        const Status saved = view.save_to(path);
        QVERIFY2(saved.is_ok(),
                 qPrintable(key + "=" + choice + ": " + QString::fromStdString(saved.message())));
        const auto loaded = sim::load_scenario(path.toStdString(), {});
        QVERIFY2(loaded.is_ok(), qPrintable(key + "=" + choice));
        QCOMPARE(field_texts(*loaded)[i], choice.toStdString());
        ++checked;
      }
    }
    QVERIFY(checked >= 13);  // dtypes, prefix caching, eviction, preemption at least
  }

  void bad_field_is_reported_not_run() {
    JobRunner runner;
    SimulationView view(&runner);
    QVERIFY(view.open("default"));
    view.set_field("cache.block_size", "sixteen");
    QVERIFY(!view.run());
    QVERIFY(!runner.is_running());
    QVERIFY2(view.error_text().contains("cache.block_size"), qPrintable(view.error_text()));
    QVERIFY(!view.open("no-such-scenario"));
    QVERIFY(view.error_text().contains("default"));  // the valid names are listed
  }
};

KVSIM_GUI_TEST_MAIN(SimulationViewTest)
#include "simulation_view_test.moc"
