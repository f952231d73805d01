#include "gui/render.h"

#include <QApplication>
#include <QPixmap>
#include <QTabWidget>

#include <qcustomplot.h>

#include "gui/main_window.h"
#include "gui/plot_panel.h"

namespace kvsim::gui {

Status save_view_png(MainWindow* window, QWidget* view, const QString& path) {
  window->resize(kRenderWindowSize);
  window->show();
  window->tabs()->setCurrentWidget(view);
  QApplication::processEvents();
  for (PlotPanel* panel : view->findChildren<PlotPanel*>()) {
    panel->plot()->replot(QCustomPlot::rpImmediateRefresh);
  }
  QApplication::processEvents();
  const QPixmap picture = view->grab();
  if (picture.isNull() || !picture.save(path, "PNG")) {
    return Status::io_error(path.toStdString() + ": cannot write PNG");
  }
  return Status::ok();
}

Status save_panel_png(const PlotPanel* panel, const QString& path, QSize size) {
  return panel->save_png(path, size.width(), size.height());
}

}  // namespace kvsim::gui
