// The contract between kvsim's main and its subcommands.
//
// Each subcommand registers itself on the CLI11 app and, when chosen, leaves the function to
// run in `*chosen`. Subcommands only parse, load presets, call the libraries and print;
// they return an exit code: 0 success, 1 a check failed (e.g. a kernel out of tolerance),
// 2 bad input (the message, from a Status, goes to stderr).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "core/base/status.h"

namespace kvsim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;

using CommandFn = std::function<int()>;

// Prints "kvsim: <message>" to stderr and returns kExitBadInput.
int report_error(const Status& status);

void register_capacity_command(CLI::App& app, CommandFn* chosen);
void register_layout_command(CLI::App& app, CommandFn* chosen);
void register_model_command(CLI::App& app, CommandFn* chosen);
void register_presets_command(CLI::App& app, CommandFn* chosen);
void register_simulate_command(CLI::App& app, CommandFn* chosen);
void register_blocks_command(CLI::App& app, CommandFn* chosen);
void register_sweep_command(CLI::App& app, CommandFn* chosen);
void register_kernels_command(CLI::App& app, CommandFn* chosen);
void register_generate_command(CLI::App& app, CommandFn* chosen);
void register_ppl_command(CLI::App& app, CommandFn* chosen);
void register_cost_command(CLI::App& app, CommandFn* chosen);
void register_calibrate_command(CLI::App& app, CommandFn* chosen);

}  // namespace kvsim::cli
