// kvsim simulate: replays a workload (a trace or a synthetic generator) against a model x
// device x cache configuration with the real KV cache manager, prints the summary and writes
// summary.json, requests.csv and timeseries.csv (and a Chrome trace) when asked.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/progress_bar.h"
#include "core/base/text_format.h"
#include "simulator/cluster/cluster_summary.h"
#include "simulator/output/stage_metrics.h"
#include "simulator/output/summary_reading.h"
#include "simulator/simulation.h"

namespace kvsim::cli {
namespace {

struct SimulateOptions {
  sim::ScenarioRequest request;
  std::string out;
  std::string chrome_trace;
  bool json = false;
  bool progress = false;
  uint32_t threads = 0;  // a cluster run's (sim::RunOptions::threads)
};

std::string latency_line(const char* name, const sim::LatencySummary& l) {
  return fmt::format("  {}  mean {}  p50 {}  p90 {}  p99 {}\n", name, format_fixed(l.mean, 4),
                     format_fixed(l.p50, 4), format_fixed(l.p90, 4), format_fixed(l.p99, 4));
}

void print_text(const sim::SimulationSetup& setup, const sim::Summary& s) {
  std::string text;
  text += fmt::format("scenario {}: {} ({} weights, {} KV) on {} x {}, {} cost model\n",
                      s.info.scenario, s.info.model, dtype_name(setup.capacity_query.weight_dtype),
                      dtype_name(setup.capacity_query.kv.dtype), s.info.num_devices, s.info.device,
                      s.info.cost_model);
  text += fmt::format("KV pool  {} blocks x {} tokens ({} per block{})\n",
                      format_count(s.info.num_blocks), s.info.block_size,
                      format_bytes(static_cast<double>(s.info.kv_bytes_per_block)),
                      setup.capacity.nz ? ", NZ padded" : "");
  text += fmt::format("requests {} completed, {} dropped, {} preemptions\n",
                      format_count(s.requests_completed), format_count(s.requests_dropped),
                      format_count(s.preemptions));
  text += sim::dropped_reasons(s);
  text += fmt::format("time     {} s simulated, {} s wall ({} events)\n",
                      format_fixed(s.sim_duration_s, 2), format_fixed(s.wall_s, 2),
                      format_count(s.events));
  text += fmt::format("tokens/s {} output, {} total\n", format_fixed(s.output_tokens_per_s, 1),
                      format_fixed(s.total_tokens_per_s, 1));
  text += fmt::format("latency (s), as a client sees it (the engine's + {} ms front end):\n",
                      format_fixed(s.info.frontend_s * 1e3, 1)) +
          latency_line("TTFT ", s.ttft_s) + latency_line("TPOT ", s.tpot_s) +
          latency_line("E2E  ", s.e2e_s) + latency_line("queue", s.queue_s);
  text +=
      fmt::format("KV usage peak {}%, mean {}%; prefix-cache hit rate {}%; swapped {}\n",
                  format_fixed(s.kv_usage_peak * 100, 1), format_fixed(s.kv_usage_mean * 100, 1),
                  format_fixed(s.prefix_cache_hit_rate * 100, 1),
                  format_bytes(static_cast<double>(s.swap_bytes)));
  if (s.draft_tokens > 0) {
    text += fmt::format("drafts   {} of {} accepted ({}%); {} tokens per verifying step\n",
                        format_count(s.accepted_draft_tokens), format_count(s.draft_tokens),
                        format_fixed(100.0 * static_cast<double>(s.accepted_draft_tokens) /
                                         static_cast<double>(s.draft_tokens),
                                     1),
                        format_fixed(1 + static_cast<double>(s.accepted_draft_tokens) /
                                             static_cast<double>(s.verify_steps),
                                     2));
  }
  text += sim::summary_reading(s);
  text += sim::stages_text(s.stages);
  if (s.extension != nullptr) text += s.extension->text();
  if (s.workload.rows_skipped_bad > 0 || s.workload.rows_failed > 0) {
    text += fmt::format("trace    {} bad rows skipped, {} failed requests left out\n",
                        format_count(s.workload.rows_skipped_bad),
                        format_count(s.workload.rows_failed));
    if (!s.workload.first_bad_row.empty())
      text += fmt::format("         first: {}\n", s.workload.first_bad_row);
  }
  std::printf("%s", text.c_str());
}

int run_simulate(const SimulateOptions& o) {
  auto scenario = sim::load_requested_scenario(o.request);
  if (!scenario.is_ok()) return report_error(scenario.status());
  auto setup = sim::prepare_simulation(*scenario);
  if (!setup.is_ok()) return report_error(setup.status());

  const bool terminal = ::isatty(::fileno(stderr)) != 0;
  sim::ProgressBar bar(stderr, terminal);
  sim::RunOptions run;
  run.out_dir = o.out;
  run.chrome_trace = o.chrome_trace;
  run.threads = o.threads;
  if (terminal || o.progress) run.progress = [&bar](const sim::Progress& p) { bar.update(p); };
  auto summary = sim::run_simulation(*setup, run);
  bar.finish();
  if (!summary.is_ok()) return report_error(summary.status());
  if (o.json) {
    std::printf("%s\n", sim::summary_to_json(*summary, /*with_wall=*/true).dump(2).c_str());
  } else {
    print_text(*setup, *summary);
  }
  return kExitOk;
}

}  // namespace

void register_simulate_command(CLI::App& app, CommandFn* chosen) {
  auto options = std::make_shared<SimulateOptions>();
  CLI::App* command = app.add_subcommand(
      "simulate", "replay a trace or a synthetic workload through the KV cache and scheduler");
  command
      ->add_option("scenario", options->request.scenario,
                   "scenario preset (kvsim presets lists them) or a YAML file")
      ->required();
  command->add_option("--trace", options->request.trace,
                      "trace file to replay instead of the scenario's workload");
  command->add_option("--trace-format", options->request.trace_format,
                      "auto, mooncake, azure, burstgpt or csv (default: the scenario's, auto)");
  command->add_option("--deployment", options->request.deployment,
                      "a deployment file (kvsim calibrate --from-log -o): its model, device, TP, "
                      "engine and measured memory replace the scenario's");
  command->add_option("--set", options->request.overrides,
                      "override a scenario field: dotted.key=value (repeatable)");
  command->add_option("--seed", options->request.seed, "seed of the workload's random choices");
  command->add_option("--out", options->out,
                      "folder for summary.json, requests.csv and timeseries.csv");
  command->add_option("--chrome-trace", options->chrome_trace,
                      "write a Chrome trace-event JSON file (open it in Perfetto)");
  command->add_flag("--skip-bad-rows", options->request.skip_bad_rows,
                    "skip (and count) malformed trace rows instead of stopping");
  command
      ->add_option("--threads", options->threads,
                   "threads a cluster run may use (default 0: every core; outputs are the same)")
      ->check(CLI::NonNegativeNumber);
  command->add_flag("--json", options->json, "print the summary as JSON");
  command->add_flag("--progress", options->progress,
                    "report progress on stderr even when it is not a terminal");
  command->callback([options, chosen] { *chosen = [options] { return run_simulate(*options); }; });
}

}  // namespace kvsim::cli
