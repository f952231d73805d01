// Headless pictures of the app, for `kvsim-gui --render` and the README: a view is laid out at
// a fixed size in its tab, its charts are replotted, and the whole view (controls, charts,
// text) is grabbed as the user would see it. Works under QT_QPA_PLATFORM=offscreen.
#pragma once

#include <QSize>
#include <QString>

#include "core/status.h"

class QWidget;

namespace kvsim::gui {

class MainWindow;
class PlotPanel;

inline constexpr QSize kRenderWindowSize{1600, 1000};

// Shows `window` (off-screen when so configured) at kRenderWindowSize, brings `view`'s tab to
// the front and writes its picture to `path`.
Status save_view_png(MainWindow* window, QWidget* view, const QString& path);

// Writes one chart alone at `size`.
Status save_panel_png(const PlotPanel* panel, const QString& path, QSize size);

}  // namespace kvsim::gui
