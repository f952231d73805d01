// Headless pictures for `kvsim-gui --render SCENARIO --out DIR` and the README: every view is
// configured from one scenario, filled by the same library calls as in the app (the
// simulation and the PPL study run in place, no worker thread), and written as a PNG. Works
// under QT_QPA_PLATFORM=offscreen.
//
//   capacity.png    the Capacity view (kRenderViewSize): the scenario's model, KV dtype, TP,
//                   memory fraction and block size on its device and the default comparison
//                   devices (gui/capacity_view.h)
//   memory.png      the KV blocks chart of the scenario's run (kRenderChartSize)
//   throughput.png  its output tokens/s chart
//   latency.png     its TTFT and TPOT CDFs
//   cost.png        its cost model's typical batches, stacked by operator (gui/cost_plots.h)
//   ppl.png         the PPL chart of the default study on the shared kjv-tiny model, scoring
//                   the first ppl_max_tokens tokens of its held-out text
//   layout.png      the Cache and layout view (kRenderViewSize): the blocks demo at the first
//                   step with a prefix hit and an eviction (the scenario's eviction policy), and
//                   one block of the scenario's model, device, KV dtype and block size in ND/NZ
//   blocks-step-NN.png  the blocks demo alone (kRenderStepSize) at each of its steps, 01 first:
//                   the whole `kvsim blocks --demo` story, one picture a step
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>
#include <cstdint>

#include "core/base/status.h"

class QWidget;

namespace kvsim::gui {

inline constexpr QSize kRenderViewSize{1600, 1000};
inline constexpr QSize kRenderChartSize{1200, 700};
inline constexpr QSize kRenderStepSize{700, 1000};

// The file names, in the order they are written: the seven views, then one picture per step
// of the blocks demo.
QStringList render_file_names();

// Writes the pictures into `out_dir` (created). Every picture is attempted; the first
// failure is returned. `written` gets the paths written.
Status render_all(const QString& scenario, const QString& out_dir, QStringList* written,
                  uint64_t ppl_max_tokens);

// Lays `view` out alone at `size` (shown; off-screen when so configured), replots its charts
// and writes its picture.
Status save_view_png(QWidget* view, QSize size, const QString& path);

}  // namespace kvsim::gui
