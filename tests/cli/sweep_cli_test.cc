// kvsim sweep and kvsim sweep merge as a user runs them, on the shipped sweep presets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

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

// An SLO sweep over `devices` on 200 requests of the default chat workload.
fs::path slo_sweep(const std::string& name, const std::string& devices) {
  const fs::path dir = temp(name);
  fs::create_directories(dir);
  std::ofstream(dir / "sweep.yaml") << "kind: simulate\nbase: default\n"
                                       "set: {workload.synthetic.num_requests: 200}\n"
                                       "grid: {device: ["
                                    << devices << "]}\nslo: {ttft_p99_s: 2.0, precision: 1.1}\n";
  return dir;
}

TEST(SweepCliTest, AnSloSweepPrintsItsAnswerPerPoint) {
  const fs::path dir = slo_sweep("slo", "a100-80g, h100-sxm");
  const CliResult result =
      run_kvsim("sweep " + (dir / "sweep.yaml").string() + " --out " + (dir / "out").string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("max request rate under the SLO, per point:\n"));
  // Each point: its rate, its cost from the device's hourly price, and what bound it.
  for (const char* device : {"device=a100-80g  max ", "device=h100-sxm  max "})
    EXPECT_THAT(result.out, HasSubstr(device));
  EXPECT_THAT(
      result.out,
      ::testing::ContainsRegex(
          R"(device=h100-sxm  max [0-9.]+ req/s  \$[0-9.]+ per M tokens \(\$[0-9.]+ per M output\)  bound by )"));
  EXPECT_THAT(result.out, ::testing::ContainsRegex("bound by (KV memory \\()?ttft_s.p99 = "));
  EXPECT_THAT(result.out, HasSubstr("2 points run, 0 failed"));
  fs::remove_all(dir);
}

TEST(SweepCliTest, ASweepWhoseEveryPointFailsExitsWithTheFirstError) {
  const fs::path all = slo_sweep("slo_all_fail", "no-such-device, other-device");
  const CliResult failed =
      run_kvsim("sweep " + (all / "sweep.yaml").string() + " --out " + (all / "out").string());
  EXPECT_EQ(failed.exit_code, 2);  // bad input: an unknown device
  EXPECT_THAT(failed.err, HasSubstr("every point failed; first: "));
  EXPECT_THAT(failed.err, HasSubstr("no-such-device"));
  EXPECT_THAT(failed.out, HasSubstr("device=no-such-device  failed: "));
  fs::remove_all(all);

  const fs::path some = slo_sweep("slo_some_fail", "a100-80g, no-such-device");
  const CliResult partial =
      run_kvsim("sweep " + (some / "sweep.yaml").string() + " --out " + (some / "out").string());
  EXPECT_EQ(partial.exit_code, 0) << partial.err;
  EXPECT_THAT(partial.out, HasSubstr("device=a100-80g        max "));
  EXPECT_THAT(partial.err, HasSubstr("1 of 2 points failed (the others are kept); first: "));
  fs::remove_all(some);
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
