// kvsim simulate as a user runs it: the JSON summary, the files, agreement with kvsim capacity,
// and exit code 2 with a clear message for bad input (scenario, --set, trace rows).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/run_cli.h"

namespace kvsim::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const char* const kSmall = " --set workload.synthetic.num_requests=200";

json run_json(const std::string& args) {
  const CliResult result = run_kvsim(args + " --json");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return json::parse(result.out, nullptr, /*allow_exceptions=*/false);
}

TEST(SimulateCliTest, JsonSummaryHasTheDocumentedKeysAndFilesAreWritten) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "simulate_cli";
  std::filesystem::remove_all(dir);
  const json out = run_json(std::string("simulate default") + kSmall + " --out " + dir.string() +
                            " --chrome-trace " + (dir / "trace.json").string());
  for (const char* key :
       {"requests_completed", "requests_dropped", "sim_duration_s", "output_tokens_per_s",
        "total_tokens_per_s", "preemptions", "prefix_cache_hit_rate", "kv_usage_peak",
        "kv_usage_mean", "swap_bytes", "events", "wall_s"}) {
    EXPECT_TRUE(out.contains(key)) << key;
  }
  for (const char* key : {"ttft_s", "tpot_s", "e2e_s"}) {
    for (const char* stat : {"mean", "p50", "p90", "p99"}) EXPECT_TRUE(out[key].contains(stat));
  }
  EXPECT_EQ(out["requests_completed"], 200);
  for (const char* file : {"summary.json", "requests.csv", "timeseries.csv", "trace.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / file)) << file;
  }
  std::ifstream requests(dir / "requests.csv");
  std::string header;
  std::getline(requests, header);
  EXPECT_EQ(header,
            "id,arrival_s,prompt_tokens,output_tokens,cached_prompt_tokens,ttft_s,tpot_s,"
            "e2e_s,preemptions,client_ttft_s,client_e2e_s");
  // The engine's times, and the client's a front end (cost_model.frontend_s) later; the
  // summary reports the client's.
  std::string row;
  std::getline(requests, row);
  std::vector<double> cells;
  std::stringstream cells_in(row);
  for (std::string cell; std::getline(cells_in, cell, ',');) cells.push_back(std::stod(cell));
  ASSERT_EQ(cells.size(), 11u) << row;
  EXPECT_NEAR(cells[9] - cells[5], 0.011, 1e-9);
  EXPECT_NEAR(cells[10] - cells[7], 0.011, 1e-9);
  EXPECT_DOUBLE_EQ(out["frontend_s"].get<double>(), 0.011);
  std::ifstream series(dir / "timeseries.csv");
  std::getline(series, header);
  EXPECT_EQ(header,
            "time_s,kv_blocks_used,kv_blocks_cached_free,kv_blocks_free,running,waiting,"
            "swapped,tokens_per_s");
}

TEST(SimulateCliTest, BlockCountsAgreeWithKvsimCapacity) {
  const json capacity = run_json(
      "capacity --model llama3-8b --device ascend-310p3 --block-size 40 "
      "--mem-fraction 0.9 --max-num-seqs 64 --max-num-batched-tokens 4096");
  const json simulated =
      run_json(std::string("simulate ascend-310p-nz --set cache.block_size=40") + kSmall);
  EXPECT_EQ(simulated["num_blocks"], capacity["num_blocks"]);
  EXPECT_EQ(simulated["kv_bytes_per_block"], capacity["kv_bytes_per_block"]);
  const json a100 = run_json(
      "capacity --model llama3-8b --device a100-40g --mem-fraction 0.9 "
      "--max-num-batched-tokens 8192 --max-num-seqs 256");
  EXPECT_EQ(run_json(std::string("simulate default") + kSmall)["num_blocks"], a100["num_blocks"]);
}

TEST(SimulateCliTest, BadInputExitsWithTwoAndSaysWhere) {
  const CliResult unknown = run_kvsim("simulate defualt");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("did you mean 'default'"));

  const CliResult bad_set = run_kvsim("simulate default --set cache.block_size=zero");
  EXPECT_EQ(bad_set.exit_code, 2);
  EXPECT_THAT(bad_set.err, HasSubstr("--set cache.block_size=zero"));

  const auto trace = std::filesystem::path(::testing::TempDir()) / "cli_bad_trace.csv";
  std::ofstream(trace) << "arrival_s,prompt_tokens,output_tokens\n0,10,5\n1,10,five\n";
  const CliResult bad_row = run_kvsim("simulate default --trace " + trace.string());
  EXPECT_EQ(bad_row.exit_code, 2);
  EXPECT_THAT(bad_row.err, HasSubstr("cli_bad_trace.csv:3: column 'output_tokens'"));

  const json skipped = run_json("simulate default --skip-bad-rows --trace " + trace.string());
  EXPECT_EQ(skipped["requests_completed"], 1);
  EXPECT_EQ(skipped["workload"]["rows_skipped_bad"], 1);

  const CliResult no_model = run_kvsim("simulate default --set model=no-such-model");
  EXPECT_EQ(no_model.exit_code, 2);
  EXPECT_THAT(no_model.err, HasSubstr("no-such-model"));
}

TEST(SimulateCliTest, TheReadingNamesComputeWhenEveryReplicaIsBusy) {
  // Two replicas at 40 requests/s: both iterate 94-100% of the run, their pools fill and
  // requests queue for minutes. The reading said "KV memory, not compute, bounds this load".
  const CliResult busy =
      run_kvsim("simulate default --set cluster.replicas=2 --set workload.synthetic.rate=40");
  ASSERT_EQ(busy.exit_code, 0) << busy.err;
  EXPECT_THAT(busy.out, HasSubstr("reading  compute binds: the busiest engine iterated 100.0%"));
  EXPECT_THAT(busy.out, ::testing::Not(HasSubstr("not compute")));
  // At 2 requests/s nothing queues: the arrival rate sets the pace.
  const CliResult light =
      run_kvsim(std::string("simulate default") + kSmall + " --set workload.synthetic.rate=2");
  EXPECT_THAT(light.out, HasSubstr("reading  the arrival rate bounds this run"));
}

TEST(SimulateCliTest, DroppedRequestsAreCountedByReason) {
  // Prompts up to 20,000 tokens against llama3-8b's 8,192-token context.
  const CliResult result = run_kvsim(std::string("simulate default") + kSmall +
                                     " --set workload.synthetic.prompt_tokens.max=20000"
                                     " --set workload.synthetic.prompt_tokens.mean=5000");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("35 dropped"));
  EXPECT_THAT(result.out, HasSubstr("dropped  35 too_long (longer than the model's context)\n"));
}

TEST(SimulateCliTest, PresetsListsScenarioDescriptions) {
  const CliResult presets = run_kvsim("presets");
  EXPECT_EQ(presets.exit_code, 0);
  EXPECT_THAT(presets.out, HasSubstr("mooncake-conversation"));
  EXPECT_THAT(presets.out, HasSubstr("Synthetic chat on llama3-8b"));
}

}  // namespace
}  // namespace kvsim::testing
