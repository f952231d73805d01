// kvsim calibrate --from-log (cli/calibrate_log.h): read the log, resolve the setup from the log
// and the flags, calibrate, print the table and write the deployment file.
#include "cli/calibrate_log.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command.h"
#include "core/base/text_format.h"
#include "core/engine/log_calibration.h"
#include "simulator/io/atomic_file.h"

namespace kvsim::cli {
namespace {

StatusOr<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::not_found(path + ": cannot open the log");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

StatusOr<CalibrationFlags> make_flags(const CalibrateSharedOptions& shared,
                                      const CalibrateLogOptions& o) {
  if (shared.model.layers || shared.model.kv_heads || shared.model.head_dim) {
    return Status::invalid_argument(
        "--from-log takes the model as --model (a preset or YAML file); --layers, --kv-heads "
        "and --head-dim define a model for MEASUREMENTS.csv only");
  }
  CalibrationFlags flags;
  flags.model = shared.model.model;
  flags.device = shared.device;
  flags.tp = shared.tp;
  flags.block_size = o.block_size;
  if (!shared.weight_dtype.empty()) {
    KVSIM_ASSIGN_OR_RETURN(flags.weight_dtype, parse_dtype(shared.weight_dtype));
  }
  if (!shared.kv_dtype.empty()) {
    KVSIM_ASSIGN_OR_RETURN(flags.kv_dtype, parse_dtype(shared.kv_dtype));
  }
  KVSIM_ASSIGN_OR_RETURN(flags.engine, resolve_engine_query(o.engine));
  flags.engine_named = !o.engine.engine.empty();
  return flags;
}

std::string value_text(double value, const std::string& unit) {
  if (unit == "GiB") return format_fixed(value, 2) + " GiB";
  if (unit == "x") return format_fixed(value, 2) + "x";
  return format_count(static_cast<uint64_t>(std::llround(std::max(0.0, value)))) + " " + unit;
}

std::string difference_text(const FigureRow& row) {
  if (!row.predicted) return "-";
  const double diff = *row.predicted - *row.logged;
  std::string text = (diff >= 0 ? "+" : "") + (row.unit == "GiB" || row.unit == "x"
                                                   ? format_fixed(diff, 2)
                                                   : std::to_string(std::llround(diff)));
  if (std::fabs(*row.logged) > 1e-12) {
    const double percent = 100.0 * diff / std::fabs(*row.logged);
    text += " (" + std::string(percent >= 0 ? "+" : "") + format_fixed(percent, 1) + "%)";
  }
  return text;
}

void print_text(const CalibrateLogOptions& o, const StartupLog& log, const CalibrationSetup& setup,
                const LogCalibration& c) {
  const EngineBudget& b = *c.predicted.engine;
  if (!setup.model_mismatch.empty()) std::printf("warning: %s\n", setup.model_mismatch.c_str());
  std::printf("%s: %s %s, model %s, device %s, TP %u\n", o.log_path.c_str(),
              std::string(engine_kind_name(b.kind)).c_str(), engine_version_name(b.version).c_str(),
              setup.model.name.c_str(), setup.device.name.c_str(), setup.capacity.tp);
  for (const std::string& note : setup.assumed) std::printf("  assumed: %s\n", note.c_str());
  for (const std::string& note : log.notes) std::printf("  log: %s\n", note.c_str());
  std::printf("\n%-28s %18s %18s %22s %6s\n", "figure", "logged", "kvsim (no log)", "difference",
              "line");
  for (const FigureRow& row : c.rows) {
    std::printf("%-28s %18s %18s %22s %6d\n", row.name.c_str(),
                value_text(*row.logged, row.unit).c_str(),
                row.predicted ? value_text(*row.predicted, row.unit).c_str() : "-",
                difference_text(row).c_str(), row.line);
  }
  const CapacityPlan& cal = c.calibrated;
  std::printf(
      "\ncalibrated: set-aside %s (requested %s - KV budget %s) -> %s blocks x %u = %s tokens"
      " (the log's %s%s)\n",
      format_bytes(c.set_aside_bytes).c_str(), format_bytes(cal.engine->requested_bytes).c_str(),
      format_bytes(*cal.capacity.kv_budget_bytes).c_str(),
      format_count(*cal.capacity.num_blocks).c_str(), cal.capacity.block_size,
      format_count(cal.reported ? cal.reported->kv_tokens : 0).c_str(), c.target_source.c_str(),
      c.exact ? ", exactly" : "");
  for (const std::string& note : c.notes) std::printf("  note: %s\n", note.c_str());
}

// Keys in this order: a model other than the log's comes first (null when they agree).
nlohmann::ordered_json to_json(const CalibrateLogOptions& o, const std::string& output,
                               const StartupLog& log, const CalibrationSetup& setup,
                               const LogCalibration& c) {
  nlohmann::ordered_json out;
  const EngineBudget& b = *c.predicted.engine;
  out["model_mismatch"] = setup.model_mismatch.empty()
                              ? nlohmann::ordered_json(nullptr)
                              : nlohmann::ordered_json(setup.model_mismatch);
  out["log"] = o.log_path;
  out["engine"] = engine_kind_name(b.kind);
  out["version"] = engine_version_name(b.version);
  out["model"] = setup.model.name;
  out["device"] = setup.device.name;
  out["tp"] = setup.capacity.tp;
  out["assumed"] = setup.assumed;
  out["log_notes"] = log.notes;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const FigureRow& row : c.rows) {
    nlohmann::ordered_json r = {
        {"name", row.name}, {"unit", row.unit}, {"logged", *row.logged}, {"line", row.line}};
    r["predicted"] =
        row.predicted ? nlohmann::ordered_json(*row.predicted) : nlohmann::ordered_json(nullptr);
    rows.push_back(r);
  }
  out["figures"] = rows;
  const CapacityPlan& cal = c.calibrated;
  out["calibrated"] = {{"set_aside_bytes", c.set_aside_bytes},
                       {"kv_budget_bytes", *cal.capacity.kv_budget_bytes},
                       {"num_blocks", *cal.capacity.num_blocks},
                       {"block_size", cal.capacity.block_size},
                       {"kv_tokens", cal.reported ? cal.reported->kv_tokens : 0},
                       {"exact", c.exact},
                       {"pool_from", c.target_source}};
  out["deployment"] =
      output.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(output);
  return out;
}

}  // namespace

int run_calibrate_from_log(const CalibrateSharedOptions& shared, const CalibrateLogOptions& o) {
  auto text = read_text(o.log_path);
  if (!text.is_ok()) return report_error(text.status());
  auto log = parse_startup_log(*text, o.log_path);
  if (!log.is_ok()) return report_error(log.status());
  auto flags = make_flags(shared, o);
  if (!flags.is_ok()) return report_error(flags.status());
  auto setup = resolve_calibration_setup(*log, *flags);
  if (!setup.is_ok()) return report_error(setup.status().with_context(o.log_path));
  auto calibration = calibrate_from_log(*log, *setup);
  if (!calibration.is_ok()) return report_error(calibration.status().with_context(o.log_path));
  const std::string& output = shared.output;
  if (!output.empty()) {
    const Deployment d = calibrated_deployment(*log, *setup, *calibration,
                                               "kvsim calibrate --from-log " + o.log_path);
    const Status written = sim::write_file_atomic(output, deployment_yaml(d));
    if (!written.is_ok()) return report_error(written);
  }
  if (shared.json) {
    std::printf("%s\n", to_json(o, output, *log, *setup, *calibration).dump(2).c_str());
  } else {
    print_text(o, *log, *setup, *calibration);
    if (!output.empty()) std::printf("wrote %s\n", output.c_str());
  }
  return kExitOk;
}

void add_calibrate_log_options(CLI::App* command, CalibrateLogOptions* o) {
  o->engine.engine.clear();  // the log names the engine; --engine only fills a gap
  command->add_option("--from-log", o->log_path, "vLLM, vllm-ascend or SGLang start-up log");
  command->add_option("--block-size", o->block_size, "tokens per block (default: the engine's)")
      ->check(CLI::Range(1u, 1u << 20));
  add_engine_options(command, &o->engine);
}

}  // namespace kvsim::cli
