// kvsim calibrate --from-bench (cli/calibrate_bench.h): a benchmark file replayed through a
// scenario, measured beside simulated. A file made from kvsim's own run is reproduced exactly;
// files it cannot use exit 2 saying why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
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

// The rows of a requests.csv, by column name, in id order.
std::vector<std::vector<double>> read_rows(const std::filesystem::path& csv,
                                           std::vector<std::string>* header) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  std::stringstream names(line);
  for (std::string name; std::getline(names, name, ',');) header->push_back(name);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end());  // by id, the first column
  return rows;
}

// What vllm bench serve would have written for a client that saw kvsim's run: every request's
// lengths, its client TTFT and its gaps (TPOT each), sent in id order by a closed loop of 3.
json bench_file_of(const std::filesystem::path& requests_csv) {
  std::vector<std::string> header;
  const auto rows = read_rows(requests_csv, &header);
  auto col = [&](const char* name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  json j = {{"backend", "vllm"},
            {"request_rate", "inf"},
            {"burstiness", 1.0},
            {"max_concurrency", 3},
            {"duration", 1.0}};
  for (const auto& row : rows) {
    const auto output = static_cast<uint64_t>(row[col("output_tokens")]);
    j["input_lens"].push_back(static_cast<uint64_t>(row[col("prompt_tokens")]));
    j["output_lens"].push_back(output);
    j["ttfts"].push_back(row[col("client_ttft_s")]);
    const double gaps = row[col("client_e2e_s")] - row[col("client_ttft_s")];
    json itls = json::array();
    for (uint64_t k = 1; k < output; ++k) itls.push_back(gaps / static_cast<double>(output - 1));
    j["itls"].push_back(itls);
    j["errors"].push_back("");
  }
  return j;
}

TEST(CalibrateBenchCliTest, AFileOfKvsimsOwnRunIsReproduced) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "calibrate_bench";
  std::filesystem::remove_all(dir);
  const std::string setup =
      " --set cache.prefix_caching=false --set workload.synthetic.num_requests=30";
  const CliResult run = run_kvsim("simulate default" + setup +
                                  " --set workload.synthetic.arrival=burst "
                                  "--set workload.max_concurrency=3 --out " +
                                  dir.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto bench = dir / "bench.json";
  std::ofstream(bench) << bench_file_of(dir / "requests.csv").dump();
  const CliResult replay = run_kvsim("calibrate --from-bench " + bench.string() +
                                     " --set cache.prefix_caching=false --json");
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const json out = json::parse(replay.out);
  EXPECT_EQ(out["requests"], 30);
  for (const char* metric : {"ttft_s", "tpot_s", "e2e_s"}) {
    for (const char* stat : {"mean", "p50", "p90", "p99"}) {
      const json& cell = out["metrics"][metric][stat];
      EXPECT_NEAR(cell["kvsim"].get<double>(), cell["measured"].get<double>(),
                  1e-6 * cell["measured"].get<double>())
          << metric << " " << stat;
    }
  }
  const CliResult text =
      run_kvsim("calibrate --from-bench " + bench.string() + " --set cache.prefix_caching=false");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("30 requests replayed (0 failed, left out), all sent at once"));
  EXPECT_THAT(text.out, HasSubstr("ttft_s mean"));
  std::filesystem::remove_all(dir);
}

TEST(CalibrateBenchCliTest, FilesItCannotUseExitTwoSayingWhy) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "calibrate_bench_bad";
  std::filesystem::create_directories(dir);
  const auto summary_only = dir / "summary_only.json";
  std::ofstream(summary_only) << R"({"request_rate": "inf", "mean_ttft_ms": 40.0})";
  const CliResult plain = run_kvsim("calibrate --from-bench " + summary_only.string());
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_THAT(plain.err, HasSubstr("no 'input_lens'"));
  EXPECT_THAT(plain.err, HasSubstr("--save-detailed"));
  const CliResult missing = run_kvsim("calibrate --from-bench " + (dir / "none.json").string());
  EXPECT_EQ(missing.exit_code, 2);
  const CliResult modes =
      run_kvsim("calibrate --from-bench " + summary_only.string() + " --from-log x.log");
  EXPECT_EQ(modes.exit_code, 2);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kvsim::testing
