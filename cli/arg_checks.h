// What every subcommand's command line holds to, applied once to the whole app in main:
//   - no negative number for an option: CLI11 converts "-1" given to an unsigned option into
//     its maximum (`--kv-budget-bytes -1` was a 16 EiB budget), so a value that reads as a
//     negative number is refused for every option, naming the option and the value;
//   - a "did you mean" for a mistyped option or subcommand, after CLI11's own message.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace kvsim::cli {

// Adds the check to every option that takes a value, in `app` and all its subcommands.
void forbid_negative_numbers(CLI::App* app);

// After a parse error: "unknown option '--tpp' (did you mean '--tp'?)" for each argument left
// over that resembles a valid one of the subcommand given, or the nearest subcommand for an
// unknown one; "" when there is nothing to suggest.
std::string parse_error_hint(const CLI::App& app);

}  // namespace kvsim::cli
