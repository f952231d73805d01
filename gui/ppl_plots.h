// Plot controller of the PPL-impact view: perplexity versus cache budget per policy spec (log
// y, budgets on a log2 x axis), and the KV bytes each saves against full on a second y axis.
//
//   "<spec>"            evicting specs: ppl at each budget (PplCurve::ppl), solid with markers
//   "<spec>" (level)    other specs (int8, int4): their one ppl drawn across the budgets
//   "full (baseline)"   the full-cache ppl across the budgets, black
//   "<spec> KV saved"   PplCurve::kv_bytes_saved on the right axis, dashed
// The CSV is the report as `kvsim ppl --json` prints its results.
#pragma once

#include "gui/ppl_study.h"

namespace kvsim::gui {

class PlotPanel;

void show_ppl(PlotPanel* panel, const PplStudy& study);

}  // namespace kvsim::gui
