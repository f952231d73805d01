// kvsim-gui: the desktop what-if and teaching app. Parses the command line and opens the
// main window; all work happens in kvsim_gui and the libraries below it.
#include <QApplication>

#include "gui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("kvsim-gui");
  kvsim::gui::MainWindow window;
  window.show();
  return QApplication::exec();
}
