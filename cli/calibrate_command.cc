// kvsim calibrate: fits the cost model to measurements. A positional CSV selects the
// measured-times mode (cli/calibrate_measurements.h).
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
