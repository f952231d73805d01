// One command line across subcommands (issue 39): the KV dtype is --kv-dtype everywhere (the old
// --dtype still works), every subcommand's --help ends with examples that run, `kvsim presets
// show` prints a preset exactly as embedded, and the simulate summary names the weight dtype.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "core/config/presets.h"
#include "tests/cli/run_cli.h"
#include "tests/test_data.h"

namespace kvsim::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Every subcommand that takes a KV dtype calls it --kv-dtype; where the flag used to be --dtype
// the old spelling is an alias that gives the same answer.
TEST(ConsistencyCliTest, TheKvDtypeIsKvDtypeEverywhereAndDtypeStillWorks) {
  const std::vector<std::string> commands = {
      "capacity --model llama3-8b --device h100-sxm --batch 4 --seq-len 8192",
      "layout --model llama3-8b --device ascend-310p3 --locate 5,1,17",
  };
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const CliResult new_name = run_kvsim(command + " --kv-dtype int8");
    const CliResult old_name = run_kvsim(command + " --dtype int8");
    const CliResult fp16 = run_kvsim(command);
    EXPECT_EQ(new_name.exit_code, 0) << new_name.err;
    EXPECT_EQ(old_name.exit_code, 0) << old_name.err;
    EXPECT_EQ(new_name.out, old_name.out);
    EXPECT_NE(new_name.out, fp16.out);  // the flag was read
  }
  for (const char* command : {"capacity", "layout", "cost", "calibrate", "ppl", "generate"}) {
    SCOPED_TRACE(command);
    EXPECT_THAT(run_kvsim(std::string(command) + " --help").out, HasSubstr("--kv-dtype"));
  }
}

// `kvsim presets show [KIND] NAME` prints the embedded YAML byte for byte, comments included.
TEST(ConsistencyCliTest, PresetsShowPrintsTheEmbeddedTextExactly) {
  const CliResult model = run_kvsim("presets show llama3-8b");
  EXPECT_EQ(model.exit_code, 0) << model.err;
  EXPECT_EQ(model.out, std::string(*embedded_preset_text(PresetKind::kModel, "llama3-8b")));
  const CliResult scenario = run_kvsim("presets show scenario default");
  EXPECT_EQ(scenario.exit_code, 0) << scenario.err;
  EXPECT_EQ(scenario.out, std::string(*embedded_preset_text(PresetKind::kScenario, "default")));
  // Every embedded preset, by kind and name.
  for (PresetKind kind : {PresetKind::kModel, PresetKind::kDevice, PresetKind::kScenario,
                          PresetKind::kSweep, PresetKind::kLink}) {
    for (const std::string& name : preset_names(kind)) {
      SCOPED_TRACE(name);
      EXPECT_EQ(run_kvsim("presets show " + std::string(preset_kind_name(kind)) + " " + name).out,
                std::string(*embedded_preset_text(kind, name)));
    }
  }
}

// An unknown name exits 2 listing the valid ones with the nearest; a name two kinds share
// asks for the kind.
TEST(ConsistencyCliTest, PresetsShowRefusesAnUnknownOrAmbiguousName) {
  const CliResult unknown = run_kvsim("presets show llama3-8");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown preset 'llama3-8' (did you mean 'llama3-8b'?)"));
  EXPECT_THAT(unknown.err, HasSubstr("h100-sxm"));
  EXPECT_EQ(unknown.out, "");
  const CliResult kinded = run_kvsim("presets show device llama3-8b");
  EXPECT_EQ(kinded.exit_code, 2);
  EXPECT_THAT(kinded.err, HasSubstr("unknown device preset 'llama3-8b'"));
  EXPECT_THAT(kinded.err, HasSubstr("h100-sxm"));
  const CliResult kind = run_kvsim("presets show modle llama3-8b");
  EXPECT_EQ(kind.exit_code, 2);
  EXPECT_THAT(kind.err, HasSubstr("unknown preset kind 'modle' (did you mean 'model'?)"));
  const CliResult shared = run_kvsim("presets show tiered-prefix-pool");
  EXPECT_EQ(shared.exit_code, 2);
  EXPECT_THAT(shared.err, HasSubstr("scenario and sweep"));
}

// The example lines at the end of `kvsim <path> --help` (each "  kvsim ..." after "Examples:").
std::vector<std::string> help_examples(const std::string& path) {
  std::istringstream help(run_kvsim(path + " --help").out);
  std::vector<std::string> lines;
  bool in_examples = false;
  for (std::string line; std::getline(help, line);) {
    if (line == "Examples:") in_examples = true;
    if (in_examples && line.rfind("  kvsim ", 0) == 0) lines.push_back(line.substr(8));
  }
  return lines;
}

// Every subcommand, nested ones included, ends its --help with examples, and every example
// runs as written from the checkout's root and exits 0.
TEST(ConsistencyCliTest, EveryHelpEndsWithExamplesThatRun) {
  std::filesystem::current_path(source_dir());
  const std::vector<std::string> paths = {
      "capacity", "layout", "model",     "model import", "presets", "presets show",
      "simulate", "blocks", "sweep",     "sweep merge",  "kernels", "kernels validate",
      "generate", "ppl",    "calibrate", "cost"};
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const std::vector<std::string> examples = help_examples(path);
    ASSERT_FALSE(examples.empty());
    for (const std::string& example : examples) {
      EXPECT_EQ(example.rfind(path.substr(0, path.find(' ')), 0), 0u) << example;
      const CliResult run = run_kvsim(example + " >/dev/null");
      EXPECT_EQ(run.exit_code, 0) << "kvsim " << example << "\n" << run.err;
    }
  }
  // The list above is every subcommand kvsim has: its top-level help names no other.
  std::istringstream top(run_kvsim("--help").out);
  bool in_subcommands = false;
  for (std::string line; std::getline(top, line);) {
    if (line == "Subcommands:") in_subcommands = true;
    if (!in_subcommands || line.rfind("  ", 0) != 0) continue;
    const std::string name = line.substr(2, line.find(' ', 2) - 2);
    EXPECT_NE(std::find(paths.begin(), paths.end(), name), paths.end()) << name;
  }
}

}  // namespace
}  // namespace kvsim::testing
