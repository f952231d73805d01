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
// lengths, its client TTFT and its gaps (TPOT each), sent in id order by a closed loop of 3, or
// (rate > 0) at the arrival times it recorded.
json bench_file_of(const std::filesystem::path& requests_csv, double rate = 0) {
  std::vector<std::string> header;
  const auto rows = read_rows(requests_csv, &header);
  auto col = [&](const char* name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  json j = {{"backend", "vllm"},
            {"request_rate", rate > 0 ? json(rate) : json("inf")},
            {"burstiness", 1.0},
            {"max_concurrency", rate > 0 ? json() : json(3)},
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
    if (rate > 0) j["start_times"].push_back(1000 + row[col("arrival_s")]);
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

// Three Poisson runs of kvsim at known terms, their bench files fitted from the defaults: the
// terms come back (within 2%), the held-out run is then reproduced, and the calibration file
// written carries them into a scenario, the front end included.
TEST(CalibrateBenchCliTest, AFitOnKvsimsOwnRunsRecoversTheTermsThatMadeThem) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "calibrate_bench_fit";
  std::filesystem::remove_all(dir);
  const std::string setup = " --set cache.prefix_caching=false";
  const std::pair<const char*, double> truth[] = {{"frontend_s", 0.025},
                                                  {"gemm.memory_efficiency", 0.7},
                                                  {"gemm.compute_efficiency_max", 0.55}};
  std::string terms = " --set cost_model.frontend_s=0.025";
  for (const auto& [name, value] : truth) {
    if (std::string(name) != "frontend_s") {
      terms += " --set cost_model.parameters." + std::string(name) + "=" + std::to_string(value);
    }
  }
  std::string files;
  for (const int rate : {2, 5, 8}) {
    const auto out = dir / ("rate" + std::to_string(rate));
    const CliResult run = run_kvsim(
        "simulate default" + setup + terms + " --set workload.synthetic.num_requests=200" +
        " --set workload.synthetic.rate=" + std::to_string(rate) + " --out " + out.string());
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto bench = dir / ("bench" + std::to_string(rate) + ".json");
    std::ofstream(bench) << bench_file_of(out / "requests.csv", rate).dump();
    files += " " + bench.string();
  }
  const auto calibration = dir / "calibration.yaml";
  const CliResult fit = run_kvsim("calibrate --from-bench" + files + setup +
                                  " --fit-on 1,3 --json -o " + calibration.string());
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  const json out = json::parse(fit.out);
  for (const auto& [name, value] : truth) {
    EXPECT_NEAR(out["terms"][name]["fitted"].get<double>(), value, 0.02 * value) << name;
    EXPECT_GT(std::abs(out["terms"][name]["start"].get<double>() - value), 0.1 * value) << name;
  }
  ASSERT_EQ(out["runs"].size(), 3u);
  EXPECT_FALSE(out["runs"][1]["fit"].get<bool>());
  for (const char* metric : {"ttft_s", "tpot_s", "e2e_s"}) {
    const json& held_out = out["held_out_median_abs_error"][metric];
    EXPECT_GT(held_out["before"].get<double>(), 0.05) << metric;
    EXPECT_LT(held_out["after"].get<double>(), 0.02) << metric;
  }
  const CliResult reuse =
      run_kvsim("simulate default" + setup + " --set workload.synthetic.num_requests=20" +
                " --set cost_model.calibration=" + calibration.string() + " --out " +
                (dir / "reuse").string());
  ASSERT_EQ(reuse.exit_code, 0) << reuse.err;
  std::ifstream summary(dir / "reuse" / "summary.json");
  EXPECT_NEAR(json::parse(summary)["frontend_s"].get<double>(),
              out["terms"]["frontend_s"]["fitted"].get<double>(), 1e-9);
  std::filesystem::remove_all(dir);
}

TEST(CalibrateBenchCliTest, AFitItCannotMakeExitsTwoNamingTheFlag) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "calibrate_bench_fit_bad";
  std::filesystem::remove_all(dir);
  ASSERT_EQ(run_kvsim("simulate default --set workload.synthetic.num_requests=20 --out " +
                      (dir / "run").string())
                .exit_code,
            0);
  const auto bench = dir / "bench.json";
  std::ofstream(bench) << bench_file_of(dir / "run" / "requests.csv").dump();
  const std::string from = "calibrate --from-bench " + bench.string();
  const std::pair<std::string, std::string> cases[] = {
      {from + " --fit-on 2", "not one of the 1 runs"},
      {from + " -o x.yaml", "add --fit-on"},
      {from + " --fit-on all --parameters frontend_s,gemm.no_such", "gemm.compute_efficiency_max"},
      {from + " --fit-on all --parameters gemm.memory_efficiency --set cost_model.kind=roofline",
       "parameter of the operators cost model; the scenario's is roofline"},
      {"calibrate --from-log x.log --parameters frontend_s", "--from-log fits nothing"}};
  for (const auto& [command, message] : cases) {
    const CliResult r = run_kvsim(command);
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_THAT(r.err, HasSubstr(message)) << command;
  }
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
