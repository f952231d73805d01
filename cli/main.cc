// kvsim: the command-line front end. Parses arguments and dispatches to a subcommand; every
// subcommand lives in its own file and calls the libraries (see cli/command.h).
#include <cstdio>
#include <exception>

#include "cli/arg_checks.h"
#include "cli/command.h"
#include "cli/help_examples.h"

namespace kvsim::cli {

int report_error(const Status& status) {
  std::fprintf(stderr, "kvsim: %s\n", status.message().c_str());
  return kExitBadInput;
}

namespace {

int run(int argc, char** argv) {
  CLI::App app{"kvsim: offline simulator and capacity planner for the KV cache of LLM inference"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kvsim 0.1.0");
  CommandFn chosen;
  register_capacity_command(app, &chosen);
  register_layout_command(app, &chosen);
  register_model_command(app, &chosen);
  register_presets_command(app, &chosen);
  register_simulate_command(app, &chosen);
  register_blocks_command(app, &chosen);
  register_sweep_command(app, &chosen);
  register_kernels_command(app, &chosen);
  register_generate_command(app, &chosen);
  register_ppl_command(app, &chosen);
  register_cost_command(app, &chosen);
  register_calibrate_command(app, &chosen);
  forbid_negative_numbers(&app);
  add_help_examples(&app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    if (code == 0) return kExitOk;
    if (const std::string hint = parse_error_hint(app); !hint.empty()) {
      std::fprintf(stderr, "%s\n", hint.c_str());
    }
    return kExitBadInput;
  }
  return chosen ? chosen() : kExitBadInput;
}

}  // namespace
}  // namespace kvsim::cli

int main(int argc, char** argv) {
  try {
    return kvsim::cli::run(argc, argv);
  } catch (const std::exception& error) {
    // Libraries return Status and never throw; this catches allocation failures and the like.
    std::fprintf(stderr, "kvsim: unexpected error: %s\n", error.what());
    return 3;
  }
}
