// The app starts off-screen with every view and no error; File > Export all writes every
// chart as a PNG of the export size that is not blank, a PDF and the CSV of the chart's data.
#include <QFile>
#include <QImage>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "gui/block_demo_view.h"
#include "gui/capacity_view.h"
#include "gui/job_runner.h"
#include "gui/layout_view.h"
#include "gui/main_window.h"
#include "gui/plot_panel.h"
#include "gui/ppl_view.h"
#include "gui/simulation_view.h"
#include "tests/gui/image_checks.h"
#include "tests/gui/wait_for_cancel.h"

using namespace kvsim;
using namespace kvsim::gui;

class AppTest : public QObject {
  Q_OBJECT

 private slots:
  void starts_with_every_view() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QStringList tabs;
    for (int i = 0; i < window.tabs()->count(); ++i) tabs << window.tabs()->tabText(i);
    QCOMPARE(tabs, (QStringList{"Capacity", "Simulation", "PPL impact", "Cache and layout"}));
    QVERIFY(window.capacity_view()->error_text().isEmpty());
    QVERIFY(window.layout_view()->error_text().isEmpty());
    QVERIFY(window.block_demo_view()->error_text().isEmpty());
    QVERIFY(window.simulation_view()->error_text().isEmpty());
    QVERIFY(window.simulation_view()->document().has_value());  // the default scenario
    QVERIFY(window.ppl_view()->error_text().isEmpty());
    QVERIFY(window.panels().size() >= 5);
  }

  void status_bar_follows_the_runner() {
    MainWindow window;
    auto* cancel = window.findChild<QPushButton*>("job_cancel");
    auto* progress = window.findChild<QProgressBar*>("job_progress");
    QVERIFY(!cancel->isEnabled());
    QSignalSpy finished(window.runner(), &JobRunner::finished);
    window.runner()->start("wait", [](JobContext& c) {
      (void)testing::wait_for_cancel(c, /*progress=*/0.5);  // none: finished.wait() fails first
      return Status::ok();
    });
    QVERIFY(cancel->isEnabled());
    QTRY_COMPARE(progress->value(), progress->maximum() / 2);
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(finished.wait(5000));
    QVERIFY(finished[0][2].toBool());
    QVERIFY(!cancel->isEnabled());
  }

  void export_all_writes_png_pdf_csv() {
    MainWindow window;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Status status = window.export_all(dir.path());
    QVERIFY2(status.is_ok(), status.message().c_str());
    int exported = 0;
    for (PlotPanel* panel : window.panels()) {
      const QString stem = dir.filePath(panel->name());
      if (!panel->has_data()) {  // e.g. the simulation charts before the first run
        QVERIFY(!QFile::exists(stem + ".png"));
        continue;
      }
      ++exported;
      QImage png(stem + ".png");
      QVERIFY2(!png.isNull(), qPrintable(stem));
      QCOMPARE(png.size(), QSize(kExportWidth, kExportHeight));
      const double variance = testing::pixel_variance(png);
      QVERIFY2(variance > testing::kMinPixelVariance,
               qPrintable(QString("%1.png looks blank: variance %2").arg(stem).arg(variance)));
      QFile pdf(stem + ".pdf");
      QVERIFY(pdf.open(QIODevice::ReadOnly));
      QCOMPARE(pdf.read(5), QByteArray("%PDF-"));
      QFile csv(stem + ".csv");
      QVERIFY(csv.open(QIODevice::ReadOnly));
      QCOMPARE(csv.readAll().toStdString(), to_csv(panel->table()));
    }
    QVERIFY(exported >= 5);
  }

  void blank_image_fails_the_variance_check() {
    QImage blank(200, 100, QImage::Format_RGB32);
    blank.fill(Qt::white);
    QCOMPARE(testing::pixel_variance(blank), 0.0);
  }
};

QTEST_MAIN(AppTest)
#include "app_test.moc"
