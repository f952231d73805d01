// The examples that end every subcommand's --help: one place holds them all, so that each
// command file keeps only its flags and a test
// (ConsistencyCliTest.EveryHelpEndsWithExamplesThatRun) runs every line.
//
// Contract: each example is a whole command line that exits 0 when run from the root of a kvsim
// checkout (the paths it names are the repository's); the lines of one help run in order (a later
// one may read what an earlier one wrote, under /tmp).
#pragma once

#include <CLI/CLI.hpp>

namespace kvsim::cli {

// Sets the footer "Examples:" + the example lines of `app`'s every subcommand, at any depth
// (the path of subcommand names, e.g. "sweep merge", keys the table in help_examples.cc).
void add_help_examples(CLI::App* app);

}  // namespace kvsim::cli
