// kvsim cost over a parallel layout (--dp, --ep; simulator/cost/expert_parallel.h): DeepSeek-V3
// on H100 with hand-computed all-to-all bytes and times, a TP-only layout timed exactly as
// before layouts reached the cost model, and bad layouts exiting 2 with the flag's name.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/run_cli.h"

namespace kvsim {
namespace {

using testing::run_kvsim;

std::map<std::string, nlohmann::json> operators(const std::string& args, nlohmann::json* all) {
  const auto result = run_kvsim("cost " + args + " --json");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::map<std::string, nlohmann::json> out;
  if (result.exit_code != 0) return out;
  *all = nlohmann::json::parse(result.out);
  for (const auto& op : (*all)["operators"]) out[op["name"].get<std::string>()] = op;
  return out;
}

constexpr char kV3[] = "--model deepseek-v3 --device h100-sxm ";
constexpr double kMoeLayers = 58;        // 61 layers, 3 dense
constexpr double kLatencyS = 4.7625e-6;  // the h100 fit's custom one-shot latency

// kvsim cost on main before this change: 58,950,278 and 135,635,189 ns.
TEST(CostParallelCli, ATpOnlyLayoutIsTimedAsBefore) {
  nlohmann::json all;
  for (const std::string flags : {"", "--dp 1 --ep 1 "}) {
    const auto ops =
        operators(std::string(kV3) + "--tp 8 " + flags + "--batch decode:64x1024", &all);
    EXPECT_EQ(all["iteration_ns"], 58'950'278);
    EXPECT_EQ(ops.count("moe_dispatch"), 0u);
    operators(std::string(kV3) + "--tp 8 " + flags + "--batch prefill:2x1000", &all);
    EXPECT_EQ(all["iteration_ns"], 135'635'189);
  }
}

// EP 8 x DP 8 (one node), 128 decodes a rank: DeepEP's low-latency kernels. Dispatch
// 128 x 8 x (7168 fp8 + 56 x 4 scale bytes) = 7,569,408 bytes a layer, 77.239 us at 98 GB/s;
// combine 128 x 8 x 7168 x 2 = 14,680,064 bytes, 115.591 us at 127 GB/s; + 4.76 us latency
// + a launch each.
TEST(CostParallelCli, DeepSeekV3AtEp8Dp8DecodesWithTheLowLatencyKernels) {
  nlohmann::json all;
  const auto ops =
      operators(std::string(kV3) + "--tp 8 --dp 8 --ep 8 --batch decode:128x2000", &all);
  EXPECT_EQ(all["dp"], 8);
  EXPECT_EQ(all["ep"], 8);
  const auto& dispatch = ops.at("moe_dispatch");
  EXPECT_EQ(dispatch["mode"], "low_latency");
  EXPECT_EQ(dispatch["count"], 58);
  EXPECT_DOUBLE_EQ(dispatch["bytes"].get<double>(), kMoeLayers * 7'569'408);
  const double one = dispatch["time_s"].get<double>() / kMoeLayers;
  EXPECT_GT(one, kLatencyS + 77.2388e-6);
  EXPECT_LT(one, kLatencyS + 77.2389e-6 + 10e-6);  // a launch is a few us at most
  const auto& combine = ops.at("moe_combine");
  EXPECT_EQ(combine["mode"], "low_latency");
  EXPECT_DOUBLE_EQ(combine["bytes"].get<double>(), kMoeLayers * 14'680'064);
  EXPECT_NE(combine["formula"].get<std::string>().find("14.680 MB / 127.00 GB/s = 115.59 us"),
            std::string::npos)
      << combine["formula"];
  EXPECT_EQ(ops.count("all_reduce"), 0u);  // attention TP 1
  const auto text =
      run_kvsim(std::string("cost ") + kV3 + "--tp 8 --dp 8 --ep 8 --batch decode:128x2000");
  EXPECT_NE(text.out.find("layout TP 8 = 8 attention DP x attention TP 1, EP 8"), std::string::npos)
      << text.out;
}

// EP 32 x DP 32 (four nodes), a 128-token prefill a rank: the normal kernels, 7 of 31 peers over
// NVLink, 24 over RDMA: 14,680,064 x 31/32 x 24/31 = 11,010,048 bytes at DeepEP's EP-32
// 58 GB/s = 189.83 us (dispatch), 57 GB/s = 193.16 us (combine).
TEST(CostParallelCli, DeepSeekV3AtEp32SendsTheOffNodeShareOverRdma) {
  nlohmann::json all;
  const auto ops =
      operators(std::string(kV3) + "--tp 32 --dp 32 --ep 32 --batch prefill:1x128", &all);
  const auto& dispatch = ops.at("moe_dispatch");
  EXPECT_EQ(dispatch["mode"], "normal");
  EXPECT_DOUBLE_EQ(dispatch["bytes"].get<double>(), kMoeLayers * 14'680'064);
  EXPECT_NE(dispatch["formula"].get<std::string>().find(
                "NVLink 3.211 MB RDMA 11.010 MB leave, the slower at 58.00 GB/s = 189.83 us"),
            std::string::npos)
      << dispatch["formula"];
  EXPECT_NE(ops.at("moe_combine")["formula"].get<std::string>().find("57.00 GB/s = 193.16 us"),
            std::string::npos)
      << ops.at("moe_combine")["formula"];
}

TEST(CostParallelCli, BadLayoutsExitTwoNamingTheFlag) {
  const auto dense =
      run_kvsim("cost --model llama3-8b --device h100-sxm --tp 2 --ep 2 --batch decode:1x8");
  EXPECT_EQ(dense.exit_code, 2);
  EXPECT_NE(dense.err.find("--ep"), std::string::npos) << dense.err;
  const auto dp = run_kvsim(std::string("cost ") + kV3 + "--tp 8 --dp 3 --batch decode:1x8");
  EXPECT_EQ(dp.exit_code, 2);
  EXPECT_NE(dp.err.find("--dp"), std::string::npos) << dp.err;
  const auto kind = run_kvsim(std::string("cost ") + kV3 +
                              "--tp 8 --dp 8 --ep 8 --kind roofline --batch decode:1x8");
  EXPECT_EQ(kind.exit_code, 2);
  EXPECT_NE(kind.err.find("cost_model.kind (--kind) roofline"), std::string::npos) << kind.err;
  const auto skew = run_kvsim(std::string("cost ") + kV3 +
                              "--tp 8 --dp 8 --ep 8 --expert-imbalance 0.5 --batch decode:1x8");
  EXPECT_EQ(skew.exit_code, 2);
  EXPECT_NE(skew.err.find("--expert-imbalance"), std::string::npos) << skew.err;
}

}  // namespace
}  // namespace kvsim
