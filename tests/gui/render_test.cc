// `kvsim-gui --render SCENARIO --out DIR`: one PNG per view, each of its documented size and
// not blank (grey-level variance above kMinPixelVariance); bad input exits 2 with a message.
// ppl.png needs the shared kjv-tiny model: without it the others are still written and the
// error names ppl.png.
#include "gui/render.h"

#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>

#include "core/base/data_dir.h"
#include "tests/gui/image_checks.h"

using namespace kvsim;
using namespace kvsim::gui;

namespace {

bool have_model() { return std::filesystem::exists(data_dir() / "models/kjv-tiny/model.bin"); }

QSize expected_size(const QString& name) {
  if (name.startsWith("blocks-step-")) return kRenderStepSize;
  return name == "capacity.png" || name == "layout.png" ? kRenderViewSize : kRenderChartSize;
}

// Tokens the PPL picture scores: fewer under the sanitizers, where the model runs ~20x slower.
#ifdef KVSIM_SANITIZED
constexpr uint64_t kPplTokens = 512;
#else
constexpr uint64_t kPplTokens = 4096;
#endif

QString gui_binary() { return qEnvironmentVariable("KVSIM_BINARY_DIR") + "/gui/kvsim-gui"; }

void check_pictures(const QDir& dir) {
  for (const QString& name : render_file_names()) {
    if (name == "ppl.png" && !have_model()) continue;
    QImage image(dir.filePath(name));
    QVERIFY2(!image.isNull(), qPrintable(name + " missing"));
    QCOMPARE(image.size(), expected_size(name));
    const double variance = testing::pixel_variance(image);
    QVERIFY2(variance > testing::kMinPixelVariance,
             qPrintable(QString("%1 looks blank: variance %2").arg(name).arg(variance)));
  }
}

}  // namespace

class RenderTest : public QObject {
  Q_OBJECT

 private slots:
  void renders_every_view_of_a_scenario() {
    QTemporaryDir dir;
    QStringList written;
    const Status status = render_all("default", dir.path(), &written, kPplTokens);
    if (have_model()) {
      QVERIFY2(status.is_ok(), status.message().c_str());
      QCOMPARE(written.size(), render_file_names().size());
    } else {
      QVERIFY(QString::fromStdString(status.message()).contains("ppl.png"));
      QCOMPARE(written.size(), render_file_names().size() - 1);
    }
    check_pictures(QDir(dir.path()));
  }

  // One picture per step of the blocks demo (11 steps: `kvsim blocks --demo`), after the views.
  void the_blocks_demo_is_rendered_step_by_step() {
    const QStringList names = render_file_names();
    QCOMPARE(names.size(), 7 + 11);
    QCOMPARE(names[7], QString("blocks-step-01.png"));
    QCOMPARE(names.back(), QString("blocks-step-11.png"));
  }

  void the_binary_renders_headless() {
    QTemporaryDir dir;
    QProcess process;
    process.start(gui_binary(), {"--render", "ascend-310p-nz", "--out", dir.path(), "--ppl-tokens",
                                 QString::number(kPplTokens)});
    QVERIFY(process.waitForFinished(300000));
    QCOMPARE(process.exitCode(), have_model() ? 0 : 2);
    QCOMPARE(QString(process.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts).size(),
             render_file_names().size() - (have_model() ? 0 : 1));
    check_pictures(QDir(dir.path()));
  }

  void bad_arguments_exit_2_with_a_message() {
    QProcess no_out;
    no_out.start(gui_binary(), {"--render", "default"});
    QVERIFY(no_out.waitForFinished(60000));
    QCOMPARE(no_out.exitCode(), 2);
    QVERIFY(QString(no_out.readAllStandardError()).contains("--out"));
    QTemporaryDir dir;
    QProcess unknown;
    unknown.start(gui_binary(), {"--render", "no-such-scenario", "--out", dir.path()});
    QVERIFY(unknown.waitForFinished(60000));
    QCOMPARE(unknown.exitCode(), 2);
    QVERIFY(QString(unknown.readAllStandardError()).contains("default"));  // valid names listed
    QProcess bad_tokens;
    bad_tokens.start(gui_binary(),
                     {"--render", "default", "--out", dir.path(), "--ppl-tokens", "many"});
    QVERIFY(bad_tokens.waitForFinished(60000));
    QCOMPARE(bad_tokens.exitCode(), 2);
    QVERIFY(QString(bad_tokens.readAllStandardError()).contains("--ppl-tokens"));
  }
};

QTEST_MAIN(RenderTest)
#include "render_test.moc"
