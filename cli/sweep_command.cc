// kvsim sweep: runs a batch of simulations (or PPL measurements) described by a sweep file
// (simulator/sweep/sweep_spec.h) — in parallel, crash-safe, resumable and shardable — and
// `kvsim sweep merge` joins the folders of a sharded sweep.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "simulator/sweep/slo_answer.h"
#include "simulator/sweep/sweep_job.h"
#include "simulator/sweep/sweep_merge.h"
#include "simulator/sweep/sweep_results.h"
#include "simulator/sweep/sweep_runner.h"

namespace kvsim::cli {
namespace {

struct SweepOptions {
  std::string sweep;
  std::string out;
  size_t jobs = 0;  // 0 = all cores
  std::string shard = "0/1";
  bool resume = false;
  bool dry_run = false;
  std::vector<std::string> merge_inputs;
};

std::string clock_text(double seconds) {
  const long total = static_cast<long>(seconds + 0.5);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%ld:%02ld", total / 60, total % 60);
  return buffer;
}

// Progress on stderr: redrawn in place on a terminal, a line every 5 s (and the last) elsewhere.
std::function<void(const sim::SweepProgress&)> progress_printer() {
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  return [terminal, last](const sim::SweepProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    const bool final = p.done == p.total;
    if (!terminal && !final && now - *last < std::chrono::seconds(5)) return;
    *last = now;
    std::fprintf(stderr, "%ssweep: %zu/%zu points, %zu failed, %zu resumed, %s elapsed, ETA %s%s",
                 terminal ? "\r" : "", p.done, p.total, p.failed, p.skipped,
                 clock_text(p.elapsed_s).c_str(), clock_text(p.eta_s).c_str(),
                 terminal && !final ? "" : "\n");
  };
}

StatusOr<std::pair<size_t, size_t>> parse_shard(const std::string& text) {
  size_t index = 0;
  size_t count = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%zu/%zu%c", &index, &count, &extra) != 2 || count == 0 ||
      index >= count) {
    return Status::invalid_argument(
        fmt::format("--shard expects I/N with 0 <= I < N, got '{}'", text));
  }
  return std::make_pair(index, count);
}

int run_dry(const std::vector<sim::SweepPoint>& points, size_t shard, size_t shards) {
  for (const sim::SweepPoint& point : sim::select_shard(points, shard, shards)) {
    std::printf("%4zu  %s  %s\n", point.index, point.id.c_str(), point.name.c_str());
  }
  return kExitOk;
}

bool is_bad_input(const Status& status) {
  return status.code() == StatusCode::kInvalidArgument || status.code() == StatusCode::kNotFound ||
         status.code() == StatusCode::kParseError;
}

// Prints what the sweep found (an SLO sweep's answer per point) and how many points failed.
// Every point failed: the first error on stderr and exit 2 when it was bad input, else 1.
int report_sweep(const sim::SweepSpec& spec, const sim::SweepRunResult& result,
                 const std::string& out) {
  auto records = sim::read_point_records(out);
  if (!records.is_ok()) return report_error(records.status());
  std::sort(records->begin(), records->end(),
            [](const sim::PointRecord& a, const sim::PointRecord& b) { return a.index < b.index; });
  if (!spec.slo.is_null()) {
    std::printf("max request rate under the SLO, per point:\n%s",
                sim::slo_answer_text(*records).c_str());
  }
  std::printf("%zu points run, %zu failed, %zu resumed; summary: %s/summary.csv\n", result.ran,
              result.failed, result.skipped, out.c_str());
  const auto first_failed = std::find_if(records->begin(), records->end(),
                                         [](const sim::PointRecord& r) { return !r.ok; });
  if (first_failed == records->end()) return kExitOk;
  const std::string first =
      result.first_failure.is_ok() ? first_failed->error : result.first_failure.message();
  const size_t num_failed =
      std::count_if(records->begin(), records->end(), [](const auto& r) { return !r.ok; });
  if (num_failed < records->size()) {
    std::fprintf(stderr, "kvsim: %zu of %zu points failed (the others are kept); first: %s\n",
                 num_failed, records->size(), first.c_str());
    return kExitOk;
  }
  std::fprintf(stderr, "kvsim: every point failed; first: %s\n", first.c_str());
  return is_bad_input(result.first_failure) ? kExitBadInput : kExitCheckFailed;
}

int run_sweep_command(const SweepOptions& o) {
  auto sweep = sim::load_sweep_request({o.sweep, ""});
  if (!sweep.is_ok()) return report_error(sweep.status());
  auto shard = parse_shard(o.shard);
  if (!shard.is_ok()) return report_error(shard.status());
  if (o.dry_run) return run_dry(sweep->points, shard->first, shard->second);
  const std::string out = o.out.empty() ? sweep->spec.output : o.out;
  if (out.empty())
    return report_error(Status::invalid_argument("give --out DIR (the sweep names no output)"));
  sim::SweepRunOptions options;
  options.out_dir = out;
  options.jobs = o.jobs;
  options.shard_index = shard->first;
  options.shard_count = shard->second;
  options.resume = o.resume;
  options.on_progress = progress_printer();
  auto result = sim::run_loaded_sweep(*sweep, options);
  if (!result.is_ok()) return report_error(result.status());
  return report_sweep(sweep->spec, *result, out);
}

int run_merge_command(const SweepOptions& o) {
  if (o.out.empty()) return report_error(Status::invalid_argument("sweep merge needs --out DIR"));
  std::vector<std::filesystem::path> inputs(o.merge_inputs.begin(), o.merge_inputs.end());
  auto result = sim::merge_sweeps(inputs, o.out);
  if (!result.is_ok()) return report_error(result.status());
  std::printf("merged %zu points (%zu failed) into %s/summary.csv\n", result->num_points,
              result->num_failed, o.out.c_str());
  return kExitOk;
}

}  // namespace

void register_sweep_command(CLI::App& app, CommandFn* chosen) {
  auto options = std::make_shared<SweepOptions>();
  CLI::App* command = app.add_subcommand("sweep", "run a batch of simulations from a sweep file");
  command->add_option("sweep", options->sweep, "sweep preset name or YAML file");
  command->add_option("--out", options->out, "output folder (default: the sweep's output)");
  command->add_option("--jobs", options->jobs, "points run in parallel (default: all cores)")
      ->check(CLI::Range(size_t{1}, size_t{1024}));
  command->add_option("--shard", options->shard, "run shard I of N (I/N, 0-based)");
  command->add_flag("--resume", options->resume, "skip points whose results exist");
  command->add_flag("--dry-run", options->dry_run, "list the points and exit");
  CLI::App* merge = command->add_subcommand("merge", "join the folders of a sharded sweep");
  // CLI11 runs this callback after merge's: leave the merge command chosen when it was given.
  command->callback([options, chosen, merge] {
    if (merge->parsed()) return;
    *chosen = [options] { return run_sweep_command(*options); };
  });
  merge->add_option("dirs", options->merge_inputs, "shard output folders")->required();
  merge->add_option("--out", options->out, "merged output folder")->required();
  merge->callback(
      [options, chosen] { *chosen = [options] { return run_merge_command(*options); }; });
}

}  // namespace kvsim::cli
