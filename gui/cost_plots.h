// The cost bars of the Simulation view: run A's typical batches (sim::typical_batches) as
// stacked bars, one segment per operator of the scenario's cost model, in milliseconds — the
// breakdown `kvsim cost` prints for the same batch (sim::explain_batches, the same numbers).
// The CSV is long-format: batch, operator, count, time_ms, share, bound.
#pragma once

#include "gui/sim_run.h"

namespace kvsim::gui {

class PlotPanel;

void show_cost(PlotPanel* panel, const SimRun& run);

}  // namespace kvsim::gui
