// One command line across subcommands (issue 39): the KV dtype is --kv-dtype everywhere (the old
// --dtype still works), every subcommand's --help ends with examples that run, `kvsim presets
// show` prints a preset exactly as embedded, and the simulate summary names the weight dtype.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/cli/run_cli.h"

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

}  // namespace
}  // namespace kvsim::testing
