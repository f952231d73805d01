// kvsim calibrate: one subcommand, three modes chosen here:
//   kvsim calibrate MEASUREMENTS.csv ...   the cost model fitted to measured iteration/request
//                                          times (cli/calibrate_measurements.h)
//   kvsim calibrate --from-log LOG ...     kvsim's KV budget beside an engine's start-up log,
//                                          and a deployment file (cli/calibrate_log.h)
//   kvsim calibrate --from-bench FILE ...  a serving benchmark's result replayed, measured
//                                          beside simulated (cli/calibrate_bench.h)
// This file only dispatches. The flags every mode takes (cli/calibrate_options.h) are declared
// here once; each mode's own flags sit in an option group that excludes the others', so `--fit`
// with `--from-log` is a parse error, not a silent no-op (and --json with a CSV exits 2).
#include <memory>

#include "cli/calibrate_bench.h"
#include "cli/calibrate_log.h"
#include "cli/calibrate_measurements.h"
#include "cli/calibrate_options.h"
#include "cli/command.h"

namespace kvsim::cli {
namespace {

struct CalibrateOptions {
  CalibrateSharedOptions shared;
  CalibrateMeasurementsOptions measurements;
  CalibrateLogOptions log;
  CalibrateBenchOptions bench;
};

void add_shared_options(CLI::App* command, CalibrateSharedOptions* o) {
  add_model_options(command, &o->model);
  command->add_option("--device", o->device, "device preset or YAML file");
  command->add_option("--tp", o->tp, "tensor-parallel devices (default 1; --from-log: the log's)")
      ->check(CLI::Range(1u, 4096u));
  command->add_option("--weight-dtype", o->weight_dtype,
                      "weight dtype (default fp16; --from-log: from the log)");
  command->add_option("--kv-dtype,--dtype", o->kv_dtype,
                      "KV dtype (default fp16; --from-log: the model dtype the log names)");
  command->add_option("-o,--output", o->output,
                      "the file to write: the calibration YAML (MEASUREMENTS.csv, --from-bench "
                      "--fit-on) or the deployment file (--from-log)");
  command->add_option("--parameters", o->parameters,
                      "comma-separated parameters to fit (MEASUREMENTS.csv default: GEMM and "
                      "attention efficiencies, iteration overhead, all-reduce latency when tp > 1; "
                      "--from-bench --fit-on default: frontend_s, gemm.memory_efficiency, "
                      "gemm.compute_efficiency_max)");
  command->add_flag("--json", o->json, "print JSON (--from-log, --from-bench)");
}

}  // namespace

void register_calibrate_command(CLI::App& app, CommandFn* chosen) {
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* command = app.add_subcommand(
      "calibrate",
      "fit kvsim to a deployment: MEASUREMENTS.csv (batch,seconds) -> cost-model calibration "
      "YAML, or --from-log LOG (an engine's start-up log) -> deployment file");
  CLI::Option* csv = command->add_option(
      "measurements", options->measurements.measurements,
      "CSV of measured times: columns batch (a batch spec or request:BxP+O) and seconds");
  add_shared_options(command, &options->shared);
  CLI::Option_group* fit = command->add_option_group("measurements", "MEASUREMENTS.csv mode");
  add_calibrate_measurements_options(fit, &options->measurements);
  CLI::Option_group* log = command->add_option_group("from-log", "--from-log mode");
  add_calibrate_log_options(log, &options->log);
  CLI::Option_group* bench = command->add_option_group("from-bench", "--from-bench mode");
  add_calibrate_bench_options(bench, &options->bench);
  log->excludes(fit);
  log->excludes(csv);
  bench->excludes(fit);
  bench->excludes(csv);
  bench->excludes(log);
  command->callback([options, chosen] {
    *chosen = [options] {
      if (!options->log.log_path.empty()) {
        if (!options->shared.parameters.empty()) {
          return report_error(Status::invalid_argument(
              "calibrate --from-log fits nothing: --parameters is for MEASUREMENTS.csv and "
              "--from-bench --fit-on"));
        }
        return run_calibrate_from_log(options->shared, options->log);
      }
      if (!options->bench.bench_paths.empty()) {
        return run_calibrate_from_bench(options->shared, options->bench);
      }
      if (options->measurements.measurements.empty()) {
        return report_error(Status::invalid_argument(
            "calibrate: give MEASUREMENTS.csv, --from-log LOG or --from-bench FILE (kvsim "
            "calibrate --help)"));
      }
      if (options->shared.json) {
        return report_error(Status::invalid_argument(
            "calibrate: --json is for --from-log and --from-bench, not MEASUREMENTS.csv"));
      }
      return run_calibrate_measurements(options->shared, options->measurements);
    };
  });
}

}  // namespace kvsim::cli
