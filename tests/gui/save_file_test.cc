// Saving through QSaveFile: a completed save replaces the file; a failed one (the writer gives
// up halfway, or the folder is missing) leaves the old content, no temporary and an error that
// names the path. The chart exports go the same way.
#include "gui/save_file.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

#include "gui/plot_panel.h"

using namespace kvsim;
using namespace kvsim::gui;

namespace {

QByteArray contents(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
}

}  // namespace

class SaveFileTest : public QObject {
  Q_OBJECT

 private slots:
  void a_completed_save_replaces_the_file() {
    QTemporaryDir dir;
    const QString path = dir.filePath("scenario.yaml");
    QVERIFY(write_text_file(path.toStdString(), "old\n").is_ok());
    QVERIFY(write_text_file(path.toStdString(), "new\n").is_ok());
    QCOMPARE(contents(path), QByteArray("new\n"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"scenario.yaml"});
  }

  void a_save_that_fails_halfway_keeps_the_old_file() {
    QTemporaryDir dir;
    const QString path = dir.filePath("data.csv");
    QVERIFY(write_text_file(path.toStdString(), "a,b\n1,2\n").is_ok());
    const Status failed = save_file(path, "CSV", [](QIODevice* device) {
      device->write("a,b\n1,");  // part of the new content, then the writer fails
      return false;
    });
    QVERIFY(!failed.is_ok());
    QCOMPARE(QString::fromStdString(failed.message()), path + ": cannot write CSV");
    QCOMPARE(contents(path), QByteArray("a,b\n1,2\n"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"data.csv"});
  }

  void a_missing_folder_is_an_error_naming_the_path() {
    QTemporaryDir dir;
    const QString path = dir.filePath("no/such/folder/data.csv");
    const Status status = write_text_file(path.toStdString(), "x");
    QVERIFY(!status.is_ok());
    QVERIFY2(QString::fromStdString(status.message()).startsWith(path + ": cannot open"),
             status.message().c_str());
    QVERIFY(!QFile::exists(path));
  }

  void chart_exports_are_whole_files_or_errors() {
    PlotPanel panel("chart", "A chart");
    QTemporaryDir dir;
    QVERIFY(panel.save_png(dir.filePath("chart.png"), 320, 200).is_ok());
    QCOMPARE(QImage(dir.filePath("chart.png")).size(), QSize(320, 200));
    QCOMPARE(QImage(dir.filePath("chart.png")).dotsPerMeterX(), 3779);  // 96 dpi, as savePng
    QVERIFY(panel.save_pdf(dir.filePath("chart.pdf"), 320, 200).is_ok());
    QVERIFY(contents(dir.filePath("chart.pdf")).startsWith("%PDF-"));
    QVERIFY(contents(dir.filePath("chart.pdf")).trimmed().endsWith("%%EOF"));
    const Status missing = panel.save_pdf(dir.filePath("missing/chart.pdf"));
    QVERIFY(!missing.is_ok());
    QVERIFY(QString::fromStdString(missing.message()).contains("missing/chart.pdf"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
             (QStringList{"chart.pdf", "chart.png"}));
  }
};

QTEST_MAIN(SaveFileTest)
#include "save_file_test.moc"
