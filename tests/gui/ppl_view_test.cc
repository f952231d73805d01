// The PPL-impact view on the shared kjv-tiny model: a background run completes and the chart
// and table hold exactly the report of the calls `kvsim ppl --budgets` makes; Cancel stops a
// long run (within 5 s: a timing_ function, run apart from the others, tests/gui/test_main.h);
// bad inputs are messages. Skips (saying why) when the shared model is absent.
#include "gui/ppl_view.h"

#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <filesystem>

#include "core/base/data_dir.h"
#include "gui/job_runner.h"
#include "gui/plot_panel.h"
#include "kernels/llama_bundle.h"
#include "kernels/ppl_job.h"
#include "tests/gui/test_main.h"

using namespace kvsim;
using namespace kvsim::gui;

namespace {

bool have_model() { return std::filesystem::exists(data_dir() / "models/kjv-tiny/model.bin"); }

#define REQUIRE_MODEL() \
  if (!have_model()) QSKIP("needs models/kjv-tiny under the data folder (KVSIM_DATA_DIR)")

// Under the sanitizers (~40x slower here; 76 s in CI) half the tokens: the same comparisons,
// one evaluation window (256 tokens are too few: budget 16 then loses no more than 64).
#ifdef KVSIM_SANITIZED
constexpr uint64_t kTokens = 512;
#else
constexpr uint64_t kTokens = 1024;
#endif

PplStudyInput small_input() {
  PplStudyInput in;
  in.max_tokens = kTokens;
  in.policies = {"window:32", "sink:4,28", "int8"};
  in.budgets = {16, 32, 64};
  return in;
}

QCPGraph* graph_named(QCustomPlot* plot, const QString& name) {
  for (int i = 0; i < plot->graphCount(); ++i) {
    if (plot->graph(i)->name() == name) return plot->graph(i);
  }
  return nullptr;
}

}  // namespace

class PplViewTest : public QObject {
  Q_OBJECT

 private slots:
  void run_completes_and_chart_holds_the_report() {
    REQUIRE_MODEL();
    JobRunner runner;
    PplView view(&runner);
    view.set_input(small_input());
    QSignalSpy finished(&runner, &JobRunner::finished);
    QVERIFY(view.run());
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished[0][1].toBool(), qPrintable(finished[0][3].toString()));
    QVERIFY(view.study().has_value());
    const PplStudy& study = *view.study();

    // The same calls as `kvsim ppl --max-tokens 1024 --policy ... --budgets 16,32,64`
    // (--max-tokens 512 under the sanitizers).
    const PplFiles files = ppl_files(small_input());
    QCOMPARE(files.model, std::string("data:models/kjv-tiny/model.bin"));
    auto llama = kernels::load_llama(files.model, files.tokenizer).value();
    const std::string text = kernels::read_text_file(files.text).value();
    const std::vector<int> tokens = kernels::ppl_tokens(*llama.tokenizer, text, kTokens);
    const auto policies =
        kernels::expand_ppl_policies(small_input().policies, {16, 32, 64}).value();
    const auto report =
        kernels::measure_perplexity(*llama.model, tokens, {0, {}}, policies).value();
    QCOMPARE(study.report.tokens, report.tokens);
    QCOMPARE(study.report.results.size(), report.results.size());
    QCOMPARE(report.results.size(), size_t{1 + 3 + 3 + 1});
    for (size_t i = 0; i < report.results.size(); ++i) {
      QCOMPARE(study.report.results[i].policy, report.results[i].policy);
      QCOMPARE(study.report.results[i].ppl, report.results[i].ppl);
      QCOMPARE(study.report.results[i].kv_bytes, report.results[i].kv_bytes);
    }

    QCustomPlot* plot = view.panel()->plot();
    QCPGraph* window = graph_named(plot, "window:32");
    QVERIFY(window != nullptr);
    QCOMPARE(window->valueAxis(), plot->yAxis);
    QCOMPARE(window->data()->size(), 3);
    const double full_bytes = static_cast<double>(report.results[0].kv_bytes);
    QCPGraph* saved = graph_named(plot, "window:32 KV saved");
    QCOMPARE(saved->valueAxis(), plot->yAxis2);
    for (int i = 0; i < 3; ++i) {
      const kernels::PolicyResult& r = report.results[static_cast<size_t>(1 + i)];
      QCOMPARE(window->data()->at(i)->key, static_cast<double>(*r.budget_tokens));
      QCOMPARE(window->data()->at(i)->value, r.ppl);
      QCOMPARE(saved->data()->at(i)->value, full_bytes - static_cast<double>(r.kv_bytes));
    }
    QCOMPARE(graph_named(plot, "sink:4,28")->data()->at(2)->value, report.results[6].ppl);
    QCOMPARE(graph_named(plot, "full (baseline)")->data()->at(0)->value, report.results[0].ppl);
    QCOMPARE(graph_named(plot, "int8 (level)")->data()->at(0)->value, report.results[7].ppl);
    QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
    // Budget 64 keeps at most 64 tokens of the window: less perplexity loss than 16.
    QVERIFY(window->data()->at(0)->value > window->data()->at(2)->value);

    QCOMPARE(view.table()->rowCount(), static_cast<int>(report.results.size()));
    QCOMPARE(view.table()->item(1, 0)->text(), QString("window:16"));
    const CsvTable& csv = view.panel()->table();
    QCOMPARE(csv.rows[1][0], std::string("window:16"));
    QCOMPARE(csv.rows[1][2], csv_number(report.results[1].ppl));
  }

  void timing_cancel_stops_a_long_run() {
    REQUIRE_MODEL();
    JobRunner runner;
    PplView view(&runner);
    PplStudyInput in = small_input();
    in.max_tokens = 0;  // the whole text: tens of seconds uncancelled
    view.set_input(in);
    QSignalSpy finished(&runner, &JobRunner::finished);
    QVERIFY(view.run());
    QTest::qWait(500);
    QVERIFY(runner.is_running());
    QElapsedTimer clock;
    clock.start();
    runner.cancel();
    QVERIFY(finished.wait(20000));
    QVERIFY2(clock.elapsed() < 5000, qPrintable(QString("cancel took %1 ms").arg(clock.elapsed())));
    qInfo("cancel took %lld ms", clock.elapsed());
    QVERIFY(finished[0][2].toBool());
    QVERIFY(!view.study().has_value());
    QVERIFY(view.error_text().contains("cancelled"));
  }

  void bad_inputs_are_messages() {
    JobRunner runner;
    PplView view(&runner);
    auto* budgets = view.findChild<QLineEdit*>("ppl_budgets");
    budgets->setText("16,x");
    QVERIFY(!view.run());
    QVERIFY(view.error_text().contains("budgets"));
    budgets->setText("16");
    view.findChild<QLineEdit*>("ppl_checkpoint")->setText("/nonexistent/model.bin");
    QSignalSpy finished(&runner, &JobRunner::finished);
    QVERIFY(view.run());
    QVERIFY(finished.wait(20000));
    QVERIFY(!finished[0][1].toBool());
    QVERIFY2(view.error_text().contains("/nonexistent/model.bin"), qPrintable(view.error_text()));
    QCOMPARE(split_specs(" sink:4,60  int8 "), (std::vector<std::string>{"sink:4,60", "int8"}));
    QCOMPARE(parse_budgets("16, 32 64").value(), (std::vector<uint64_t>{16, 32, 64}));
  }
};

KVSIM_GUI_TEST_MAIN(PplViewTest)
#include "ppl_view_test.moc"
