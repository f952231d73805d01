// kvsim calibrate: fits the cost model to measurements, in one of two modes chosen here:
//   kvsim calibrate MEASUREMENTS.csv ...   measured iteration/request times
//                                          (cli/calibrate_measurements.h)
//   kvsim calibrate --from-log LOG ...     an engine's log (issue 16: cli/calibrate_log.cc;
//                                          not in this file yet — its option and its branch of
//                                          the callback go where the comments say)
// This file only dispatches; each mode's options and work live in its own file.
#include <memory>

#include "cli/calibrate_measurements.h"
#include "cli/command.h"

namespace kvsim::cli {

void register_calibrate_command(CLI::App& app, CommandFn* chosen) {
  auto measurements = std::make_shared<CalibrateMeasurementsOptions>();
  CLI::App* command = app.add_subcommand(
      "calibrate", "fit the cost model: MEASUREMENTS.csv (batch,seconds) -> calibration YAML");
  command->add_option("measurements", measurements->measurements,
                      "CSV of measured times: columns batch (a batch spec or request:BxP+O) "
                      "and seconds");
  add_calibrate_measurements_options(command, measurements.get());
  // --from-log: add its option here (excluding the positional CSV), then its branch first in
  // the callback below.
  command->callback([measurements, chosen] {
    *chosen = [measurements] {
      if (measurements->measurements.empty()) {
        return report_error(
            Status::invalid_argument("calibrate: give MEASUREMENTS.csv (kvsim calibrate --help)"));
      }
      return run_calibrate_measurements(*measurements);
    };
  });
}

}  // namespace kvsim::cli
