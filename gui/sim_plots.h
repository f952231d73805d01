// Plot controllers of the Simulation view: they move one run (A) and optionally a second run
// (B, for comparison) into the charts and their CSV tables. Run A is drawn solid, run B dashed
// over it. Every value is a field of SimRun (gui/sim_run.h), unchanged, except where stacking
// or a CDF needs a sum or a rank:
//
//   kv blocks    run A stacked: "A used", "A used + cached free" (the sum), "A pool" (used +
//                cached free + free); run B's "B used" and "B used + cached free" as lines
//   requests     running, waiting, swapped of each run
//   throughput   output tokens/s of each run; A's total tokens/s (prefill + decode) dotted
//   latency      two panes: TTFT CDF and TPOT CDF; x = sorted latencies (s), y = (i+1)/n
// CSV tables are long-format, one row per point with the run's label in the first column.
#pragma once

#include "gui/sim_run.h"

namespace kvsim::gui {

class PlotPanel;

void show_kv_blocks(PlotPanel* panel, const SimRun& a, const SimRun* b);
void show_requests(PlotPanel* panel, const SimRun& a, const SimRun* b);
void show_throughput(PlotPanel* panel, const SimRun& a, const SimRun* b);
void show_latency(PlotPanel* panel, const SimRun& a, const SimRun* b);

}  // namespace kvsim::gui
