// run_engine: a lone engine's scenario from its setup to the summary (run_simulation(),
// simulator/simulation.h, hands single-engine setups here).
//
// Builds the cost model, the workload and the Engine, attaches the metrics, the files the
// scenario asks for (when an output folder is given) and the caller's observers, and runs:
//   DIR/summary.json    the summary (simulator/output/metrics.h)
//   DIR/requests.csv    simulator/output/requests_csv_writer.h
//   DIR/timeseries.csv  simulator/output/timeseries_writer.h
//   the Chrome trace    wherever it is asked for
// The same scenario and seed give byte-identical files.
#pragma once

#include "simulator/run/run_options.h"
#include "simulator/setup/engine_setup.h"

namespace kvsim::sim {

StatusOr<Summary> run_engine(const EngineSetup& setup, const RunOptions& options);

}  // namespace kvsim::sim
