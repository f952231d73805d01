// kvsim-gui: the desktop what-if and teaching app.
//
//   kvsim-gui                                   opens the window
//   kvsim-gui --render SCENARIO --out DIR       writes capacity.png, memory.png, throughput.png,
//                                               latency.png, ppl.png and layout.png for the
//                                               scenario (a preset name or YAML file), no window
//                                               needed (QT_QPA_PLATFORM=offscreen)
// Exit codes as the CLI's: 0 success, 2 bad input or a picture that could not be made.
#include <QApplication>
#include <QCommandLineParser>
#include <cstdio>

#include "gui/main_window.h"
#include "gui/render.h"

namespace {

constexpr int kExitBadInput = 2;

int render(const QString& scenario, const QString& out_dir) {
  QStringList written;
  const kvsim::Status status = kvsim::gui::render_all(scenario, out_dir, &written);
  for (const QString& path : written) std::printf("%s\n", qPrintable(path));
  if (!status.is_ok()) {
    std::fprintf(stderr, "kvsim-gui: %s\n", status.message().c_str());
    return kExitBadInput;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("kvsim-gui");
  QCommandLineParser parser;
  parser.setApplicationDescription("kvsim: KV cache capacity, simulation, PPL impact, teaching");
  parser.addHelpOption();
  const QCommandLineOption render_option(
      "render", "Write one PNG per view for SCENARIO (a preset or YAML file) and exit.",
      "SCENARIO");
  const QCommandLineOption out_option("out", "Folder for --render's PNGs.", "DIR");
  parser.addOption(render_option);
  parser.addOption(out_option);
  parser.process(app);
  if (parser.isSet(render_option)) {
    if (!parser.isSet(out_option)) {
      std::fprintf(stderr, "kvsim-gui: --render needs --out DIR\n");
      return kExitBadInput;
    }
    return render(parser.value(render_option), parser.value(out_option));
  }
  kvsim::gui::MainWindow window;
  window.show();
  return QApplication::exec();
}
