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

// The weight dtype a command names is the run's: a scenario's weight_dtype or --weight-dtype,
// else the model's own (a config.json's torch_dtype: bfloat16 for Llama 3.1), else fp16.
// kvsim simulate's first line names it with the KV dtype, kvsim capacity's header and JSON and
// kvsim cost's first line likewise; a bf16 weight is 2 bytes like fp16, so only names move.
TEST(ConsistencyCliTest, TheSimulateSummaryNamesABf16ModelBf16) {
  std::filesystem::current_path(source_dir());
  const std::string few = " --set workload.synthetic.num_requests=20";
  const std::string hf = "presets/hf/meta-llama__Llama-3.1-8B.json";
  const CliResult preset = run_kvsim("simulate default" + few);
  EXPECT_EQ(preset.exit_code, 0) << preset.err;
  EXPECT_THAT(preset.out, HasSubstr("scenario default: llama3-8b (fp16 weights, fp16 KV) on 1 x"));
  const CliResult bf16 =
      run_kvsim("simulate default --set weight_dtype=null --set model=" + hf + few);
  EXPECT_EQ(bf16.exit_code, 0) << bf16.err;
  EXPECT_THAT(bf16.out, HasSubstr("meta-llama__Llama-3.1-8B (bf16 weights, fp16 KV)"));
  const CliResult stated = run_kvsim(
      "simulate default --set weight_dtype=fp8 --set cache.dtype=int8 --set model=" + hf + few);
  EXPECT_EQ(stated.exit_code, 0) << stated.err;
  EXPECT_THAT(stated.out, HasSubstr("meta-llama__Llama-3.1-8B (fp8 weights, int8 KV)"));

  const std::string capacity = "capacity --model " + hf + " --device h100-sxm";
  EXPECT_THAT(run_kvsim(capacity).out, HasSubstr("TP 1, weights bf16"));
  const CliResult json = run_kvsim(capacity + " --json");
  const CliResult json_fp16 = run_kvsim(capacity + " --json --weight-dtype fp16");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"weight_dtype\": \"bf16\""));
  std::string renamed = json.out;  // every figure as with fp16 weights, only the name moves
  for (size_t at = renamed.find("bf16"); at != std::string::npos; at = renamed.find("bf16", at)) {
    renamed.replace(at, 4, "fp16");
  }
  EXPECT_EQ(renamed, json_fp16.out);
  EXPECT_THAT(run_kvsim(capacity + " --weight-dtype fp8").out, HasSubstr("weights fp8"));
  EXPECT_THAT(run_kvsim("capacity --model llama3-8b --device h100-sxm").out,
              HasSubstr("weights fp16"));

  const CliResult cost =
      run_kvsim("cost --model " + hf + " --device h100-sxm --batch decode:4x512");
  EXPECT_EQ(cost.exit_code, 0) << cost.err;
  EXPECT_THAT(cost.out, HasSubstr("on 1 x h100-sxm (bf16 weights)"));
  const CliResult bad = run_kvsim(capacity + " --weight-dtype fp12");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--weight-dtype: unknown dtype 'fp12'"));
}

}  // namespace
}  // namespace kvsim::testing
