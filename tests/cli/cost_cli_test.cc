// kvsim cost and kvsim calibrate as a user runs them: the breakdown adds up to the iteration
// time the simulator uses, bad profiles and measurements name file:line (exit 2), and a
// calibration written by one command is read by the other.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/run_cli.h"

namespace kvsim {
namespace {

using testing::run_kvsim;

nlohmann::json cost_json(const std::string& args) {
  const auto result = run_kvsim("cost " + args + " --json");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.exit_code == 0 ? nlohmann::json::parse(result.out) : nlohmann::json();
}

TEST(CostCli, TheBreakdownSumsToTheIterationTime) {
  const auto cost = cost_json(
      "--model llama2-70b --device a100-80g --tp 4 "
      "--batch decode:64x2048,prefill:2x1024+512,chunk:1x512");
  double sum = 0;
  for (const auto& op : cost["operators"]) sum += op["time_s"].get<double>();
  EXPECT_NEAR(sum, cost["total_s"].get<double>(), 1e-12);
  EXPECT_EQ(cost["iteration_ns"].get<int64_t>(), std::llround(cost["total_s"].get<double>() * 1e9));
  EXPECT_EQ(cost["shape"]["sampled_tokens"], 66);  // the chunk samples nothing
  const auto text =
      run_kvsim("cost --model llama2-70b --device a100-80g --tp 4 --batch decode:8x100");
  EXPECT_NE(text.out.find("all_reduce"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("memory"), std::string::npos);
}

// A hybrid model: its 52 sliding layers read their 1024-token window, its 10 full layers the
// whole context; the profile kind, which has no sliding layers, refuses it (exit 2).
TEST(CostCli, AHybridModelIsTimedPerLayerKind) {
  const auto cost = cost_json("--model gemma-3-27b-it --device h100-sxm --batch decode:32x32768");
  std::map<std::string, nlohmann::json> ops;
  for (const auto& op : cost["operators"]) ops[op["name"].get<std::string>()] = op;
  ASSERT_EQ(ops.count("attention_decode_sliding"), 1u) << cost.dump(2);
  EXPECT_EQ(ops["attention_decode_sliding"]["count"], 52);
  EXPECT_EQ(ops["attention_decode"]["count"], 10);
  EXPECT_LT(ops["attention_decode_sliding"]["bytes"].get<double>(),
            ops["attention_decode"]["bytes"].get<double>());
  const auto profile = run_kvsim(
      "cost --model gemma-3-27b-it --device h100-sxm --kind profile --profiles /nonexistent "
      "--batch decode:1x100");
  EXPECT_EQ(profile.exit_code, 2);
  EXPECT_NE(profile.err.find("hybrid"), std::string::npos) << profile.err;
}

// One request on an idle engine: its TTFT is one prefill iteration and its TPOT one decode,
// each exactly what kvsim cost says for that batch.
TEST(CostCli, TheSimulatorUsesTheSameIterationTimes) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "cost_cli";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "one.csv") << "arrival_s,prompt_tokens,output_tokens\n0,1000,2\n";
  const auto sim =
      run_kvsim("simulate default --set workload.synthetic=null --set workload.trace=" +
                (dir / "one.csv").string() + " --set cost_model.kind=operators --json");
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const auto summary = nlohmann::json::parse(sim.out);
  // The default scenario's model and device (presets/scenarios/default.yaml).
  const auto prefill = cost_json("--model llama3-8b --device a100-40g --batch prefill:1x1000");
  const auto decode = cost_json("--model llama3-8b --device a100-40g --batch decode:1x1000");
  // The summary's TTFT is the client's: the prefill iteration plus the front end.
  EXPECT_EQ(
      std::llround((summary["ttft_s"]["mean"].get<double>() - summary["frontend_s"].get<double>()) *
                   1e9),
      prefill["iteration_ns"]);
  EXPECT_EQ(std::llround(summary["tpot_s"]["mean"].get<double>() * 1e9), decode["iteration_ns"]);
}

// The same for a hybrid model whose window binds (a 3000-token prompt, W = 1024): the
// scheduler's shapes carry the window as kvsim cost's do.
TEST(CostCli, TheSimulatorTimesAHybridAsKvsimCostDoes) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "cost_cli_hybrid";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "one.csv") << "arrival_s,prompt_tokens,output_tokens\n0,3000,2\n";
  const auto sim = run_kvsim(
      "simulate default --set model=gemma-3-27b-it --set device=h100-sxm "
      "--set workload.synthetic=null --set workload.trace=" +
      (dir / "one.csv").string() + " --set cost_model.kind=operators --json");
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const auto summary = nlohmann::json::parse(sim.out);
  const auto prefill = cost_json("--model gemma-3-27b-it --device h100-sxm --batch prefill:1x3000");
  const auto decode = cost_json("--model gemma-3-27b-it --device h100-sxm --batch decode:1x3000");
  // The summary's TTFT is the client's: the prefill iteration plus the front end.
  EXPECT_EQ(
      std::llround((summary["ttft_s"]["mean"].get<double>() - summary["frontend_s"].get<double>()) *
                   1e9),
      prefill["iteration_ns"]);
  EXPECT_EQ(std::llround(summary["tpot_s"]["mean"].get<double>() * 1e9), decode["iteration_ns"]);
}

// Speculative decoding (EAGLE-3, k = 2, every draft accepted): one request of 1000 prompt and 3
// output tokens. The prefill samples token 1 and the drafter proposes min(2, 3 - 1 - 1) = 1
// draft; one verifying step of 2 tokens yields tokens 2 and 3. Each step is kvsim cost's
// verification (or prefill) plus the drafter's passes, to the nanosecond.
TEST(CostCli, TheSimulatorTimesSpeculativeStepsAsKvsimCostDoes) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "cost_cli_speculative";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "one.csv") << "arrival_s,prompt_tokens,output_tokens\n0,1000,3\n";
  const auto sim = run_kvsim(
      "simulate eagle3-llama3.1-8b --set workload.synthetic=null --set workload.trace=" +
      (dir / "one.csv").string() +
      " --set speculative.num_speculative_tokens=2 --set speculative.acceptance=1 --json");
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const auto summary = nlohmann::json::parse(sim.out);
  const std::string target = "--model llama-3.1-8b-instruct --device h100-sxm ";
  const auto prefill = cost_json(target + "--batch prefill:1x1000 --speculative eagle3:2");
  const auto verify = cost_json(target + "--batch verify:1x2+1000 --speculative eagle3:2");
  // The drafter: one pass over the batch's tokens (its KV for every position), then k - 1 = 1
  // pass of one token.
  ASSERT_GT(prefill["draft"]["first_pass_ns"].get<int64_t>(), 0) << prefill.dump(2);
  EXPECT_EQ(prefill["draft"]["later_passes"], 1);
  EXPECT_EQ(prefill["step_ns"].get<int64_t>(),
            prefill["iteration_ns"].get<int64_t>() +
                prefill["draft"]["first_pass_ns"].get<int64_t>() +
                prefill["draft"]["later_pass_ns"].get<int64_t>());
  EXPECT_EQ(verify["shape"]["sampled_tokens"], 2);
  EXPECT_EQ(
      std::llround((summary["ttft_s"]["mean"].get<double>() - summary["frontend_s"].get<double>()) *
                   1e9),
      prefill["step_ns"]);
  EXPECT_NEAR(summary["tpot_s"]["mean"].get<double>() * 2e9, verify["step_ns"].get<double>(), 2);
  EXPECT_EQ(summary["speculative"]["accepted_draft_tokens"], 1);
  const auto bad = run_kvsim("cost " + target + "--batch decode:1x10 --speculative eagle3");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("METHOD:K"), std::string::npos) << bad.err;
}

TEST(CostCli, ABadProfileNamesFileAndLine) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "bad_profile";
  const auto model = dir / "compute" / "a100" / "org" / "llama3";
  std::filesystem::create_directories(model);
  std::ofstream(model / "mlp.csv")
      << "time_stats.attn_pre_proj.median,n_head,n_kv_head,n_embd,n_expanded_embd,num_tokens,"
         "num_tensor_parallel_workers\n"
         "0.1,32,8,4096,14336,1,1\n"
         "0.x,32,8,4096,14336,2,1\n";
  const auto result =
      run_kvsim("cost --model llama3-8b --device a100-80g --kind profile --profiles " +
                dir.string() + " --batch prefill:1x8");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("mlp.csv:3"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("time_stats.attn_pre_proj.median"), std::string::npos) << result.err;
}

// Bad input to the cost model: a batch spec, a kind on the command line and in a scenario (its
// file:line:column, the nearest valid name) all exit 2 with what was expected.
TEST(CostCli, BadBatchesAndKindsExitTwoSayingWhatWasExpected) {
  const auto batch = run_kvsim("cost --model llama3-8b --device a100-80g --batch decode:64y2048");
  EXPECT_EQ(batch.exit_code, 2);
  EXPECT_NE(batch.err.find("expected decode:NxC"), std::string::npos) << batch.err;
  const auto kind =
      run_kvsim("cost --model llama3-8b --device a100-80g --kind nope --batch decode:1x8");
  EXPECT_EQ(kind.exit_code, 2);
  EXPECT_NE(kind.err.find("valid: operators, roofline, profile, table"), std::string::npos)
      << kind.err;
  const auto dir = std::filesystem::path(::testing::TempDir()) / "bad_kind";
  std::filesystem::create_directories(dir);
  const auto yaml = (dir / "s.yaml").string();
  std::ofstream(yaml) << "model: llama3-8b\ndevice: a100-80g\n"
                         "workload: {synthetic: {num_requests: 2, rate: 1}}\n"
                         "cost_model:\n  kind: operator\n";
  const auto scenario = run_kvsim("simulate " + yaml);
  EXPECT_EQ(scenario.exit_code, 2);
  EXPECT_NE(scenario.err.find("s.yaml:5:9"), std::string::npos) << scenario.err;
  EXPECT_NE(scenario.err.find("did you mean 'operators'?"), std::string::npos) << scenario.err;
}

TEST(CalibrateCli, FitsWritesAndIsReadBack) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "calibrate_cli";
  std::filesystem::create_directories(dir);
  // Times the model gives with a fixed overhead of 2 ms instead of 0.5 ms: the fit finds it.
  // kvsim calibrate fits without an engine's profile: vLLM V0's (decode graphs, its CPU work
  // not overlapped) is the same.
  std::ofstream csv(dir / "m.csv");
  csv << "batch,seconds\n";
  for (const std::string spec :
       {"decode:1x512", "decode:32x1024", "prefill:1x2048", "prefill:1x128"}) {
    const auto cost =
        cost_json("--model llama3-8b --device a100-80g --engine vllm-v0 --batch " + spec);
    csv << spec << "," << (cost["total_s"].get<double>() + 1.5e-3) << "\n";
  }
  csv.close();
  const auto yaml = (dir / "cal.yaml").string();
  const auto fit = run_kvsim(
      "calibrate " + (dir / "m.csv").string() +
      " --model llama3-8b --device a100-80g --parameters iteration_overhead_s -o " + yaml);
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_NE(fit.out.find("iteration_overhead_s"), std::string::npos) << fit.out;
  const auto cost = cost_json(
      "--model llama3-8b --device a100-80g --engine vllm-v0 --batch decode:1x512 "
      "--calibration " +
      yaml);
  EXPECT_NEAR(cost["operators"].back()["time_s"].get<double>(), 2e-3, 2e-5);
  std::ofstream(dir / "bad.csv") << "batch,seconds\ndecode:1x512,fast\n";
  const auto bad = run_kvsim("calibrate " + (dir / "bad.csv").string() +
                             " --model llama3-8b --device a100-80g -o " + yaml);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.csv:2"), std::string::npos) << bad.err;
}

TEST(CostCli, ShowsWhichOfTheEnginesRulesApplied) {
  const auto text = run_kvsim(
      "cost --model llama2-70b --device h100-sxm --tp 4 --batch decode:40x700 --engine vllm "
      "--engine-version 0.15.1");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("engine vllm 0.15.1:"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("FULL_AND_PIECEWISE"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("160 x 17.44 us = two-shot: latency 12.60 us"), std::string::npos)
      << text.out;
  const auto nccl = cost_json(
      "--model llama2-70b --device h100-sxm --tp 4 --batch decode:40x700 --engine vllm-v0 "
      "--engine-version 0.2.7");
  EXPECT_EQ(nccl["engine"], "vllm-v0 0.2.7");
  EXPECT_NE(nccl["execution_rules"].dump().find("NCCL"), std::string::npos);
  const auto bad = run_kvsim(
      "cost --model llama2-70b --device h100-sxm --batch decode:1x1 "
      "--engine vlm");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("vllm"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace kvsim
