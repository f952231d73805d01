// kvsim sweep and kvsim sweep merge as a user runs them, on the shipped sweep presets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/cli/run_cli.h"

namespace kvsim::testing {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path temp(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("kvsim_sweep_cli_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

size_t count_lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

TEST(SweepCliTest, DryRunListsTheCrossProduct) {
  const CliResult result = run_kvsim("sweep devices-vs-dtype --dry-run");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(count_lines(result.out), 7u * 3u);
  EXPECT_THAT(result.out, HasSubstr("device=ascend-310p3,cache.dtype=int8"));
  const CliResult shard = run_kvsim("sweep devices-vs-dtype --dry-run --shard 1/4");
  EXPECT_EQ(count_lines(shard.out), 5u);  // indices 1, 5, 9, 13, 17
}

TEST(SweepCliTest, ShardsMergeIntoTheUnshardedSummaryAndFailuresAreRecorded) {
  const fs::path whole = temp("whole");
  const CliResult run = run_kvsim("sweep devices-vs-dtype --set-free --out " + whole.string());
  EXPECT_EQ(run.exit_code, 2);  // unknown option
  const CliResult full = run_kvsim("sweep devices-vs-dtype --jobs 2 --out " + whole.string());
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_THAT(full.out, HasSubstr("21 points run, 2 failed"));
  const std::string summary = read_text_file(whole / "summary.csv");
  EXPECT_EQ(count_lines(summary), 22u);
  EXPECT_THAT(summary, HasSubstr("error,\"device 'ascend-310p3' does not store KV as bf16"));

  std::string dirs;
  for (int i = 0; i < 3; ++i) {
    const fs::path shard = temp("shard" + std::to_string(i));
    const CliResult part = run_kvsim("sweep devices-vs-dtype --jobs 1 --shard " +
                                     std::to_string(i) + "/3 --out " + shard.string());
    ASSERT_EQ(part.exit_code, 0) << part.err;
    dirs += " " + shard.string();
  }
  const fs::path merged = temp("merged");
  const CliResult merge = run_kvsim("sweep merge" + dirs + " --out " + merged.string());
  ASSERT_EQ(merge.exit_code, 0) << merge.err;
  EXPECT_EQ(read_text_file(merged / "summary.csv"), summary);

  const CliResult resumed = run_kvsim("sweep devices-vs-dtype --resume --out " + whole.string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("0 points run, 0 failed, 21 resumed"));
  EXPECT_EQ(read_text_file(whole / "summary.csv"), summary);
  for (const char* name : {"whole", "shard0", "shard1", "shard2", "merged"})
    fs::remove_all(temp(name));
}

TEST(SweepCliTest, BadInputExitsWithTwo) {
  CliResult result = run_kvsim("sweep no-such-sweep --dry-run");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("valid: devices-vs-dtype"));
  result = run_kvsim("sweep devices-vs-dtype --shard 3/3 --dry-run");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("--shard expects I/N"));
  result = run_kvsim("sweep merge /nonexistent --out /tmp/x");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("cannot open"));
}

}  // namespace
}  // namespace kvsim::testing
