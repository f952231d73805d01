// What every subcommand's command line holds to (cli/arg_checks.h) and the inputs that used to
// slip through: a negative number for any option, a TP the model cannot be split over, the
// default sequence length of `kvsim capacity`, and a "did you mean" for a mistyped option or
// subcommand. Each exits 2 naming the option (or field) and the value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli/run_cli.h"

namespace kvsim::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// `--kv-budget-bytes -1` was a 16 EiB budget (CLI11 wraps -1 into an unsigned option's
// maximum); every option of every subcommand that takes a number refuses a negative one (an
// option with a range check says so in its own words first).
TEST(InputChecksCliTest, NegativeNumbersExit2NamingTheOptionAndTheValue) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"capacity --model llama3-8b --device a100-80g", "--kv-budget-bytes"},
      {"capacity --model llama3-8b --device a100-80g", "--device-used-bytes"},
      {"capacity --model llama3-8b --device a100-80g", "--layers"},
      {"simulate default", "--seed"},
      {"layout --model llama3-8b", "--block-size"},
      {"cost --model llama3-8b --device a100-80g --batch decode:8x512", "--tp"},
  };
  for (const auto& [command, option] : cases) {
    SCOPED_TRACE(command + " " + option);
    const CliResult r = run_kvsim(command + " " + option + " -1");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, HasSubstr(option));
    EXPECT_THAT(r.err, HasSubstr(option + ": "));
    EXPECT_THAT(r.err, HasSubstr("-1"));  // "-1 is negative", or a range check's "Value -1"
  }
}

// vLLM and SGLang shard the query heads evenly: TP must divide them (32 for llama3-8b), in
// `kvsim capacity` and in a scenario's num_devices alike.
TEST(InputChecksCliTest, ATpThatDoesNotDivideTheHeadsExits2) {
  for (const std::string& command :
       {std::string("capacity --model llama3-8b --device a100-80g --tp 1000"),
        std::string("simulate default --set num_devices=1000")}) {
    SCOPED_TRACE(command);
    const CliResult r = run_kvsim(command);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, HasSubstr("tensor parallelism 1000"));
    EXPECT_THAT(r.err, HasSubstr("32 attention heads"));
    EXPECT_THAT(r.err, HasSubstr("valid: 1, 2, 4, 8, 16, 32"));
  }
}

// Without --seq-len the sequences counted are --max-model-len long, not the model's maximum
// (it printed "max sequences of 40,960 tokens" beside "12.52x for 32,768 tokens").
TEST(InputChecksCliTest, TheDefaultSequenceLengthIsTheEnginesMaxModelLen) {
  const CliResult r =
      run_kvsim("capacity --model qwen3-8b --device a100-80g --max-model-len 32768 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(r.out, nullptr, false);
  EXPECT_EQ(out["seq_len"], 32'768);
  const CliResult text = run_kvsim(
      "capacity --model qwen3-8b --device a100-80g "
      "--max-model-len 32768");
  EXPECT_THAT(text.out, HasSubstr("Max sequences of 32,768 tokens"));
  const CliResult given = run_kvsim(
      "capacity --model qwen3-8b --device a100-80g --max-model-len 32768 --seq-len 1000 --json");
  EXPECT_EQ(json::parse(given.out, nullptr, false)["seq_len"], 1000);
}

TEST(InputChecksCliTest, AMistypedOptionOrSubcommandGetsASuggestion) {
  const CliResult option = run_kvsim("capacity --model llama3-8b --tpp 2");
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_THAT(option.err, HasSubstr("unknown option '--tpp' (did you mean '--tp'?)"));
  const CliResult subcommand = run_kvsim("simulat default");
  EXPECT_EQ(subcommand.exit_code, 2);
  EXPECT_THAT(subcommand.err, HasSubstr("unknown subcommand 'simulat' (did you mean 'simulate'?)"));
  const CliResult nested = run_kvsim("simulate default --chrome-tarce x.json");
  EXPECT_THAT(nested.err, HasSubstr("did you mean '--chrome-trace'?"));
}

}  // namespace
}  // namespace kvsim::testing
