// kind: profile — the grid interpolation (exact at measured points, between neighbours in
// between), the Vidur files read with file:line errors, and the model on the shared A100
// Llama-2-70B TP2 profile reproducing its rows.
#include "simulator/cost/profile_cost_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/model/load_spec.h"
#include "simulator/cost/batch_spec.h"
#include "simulator/cost/vidur_profile.h"
#include "tests/test_data.h"

namespace kvsim::sim {
namespace {

TEST(ProfileGrid, ExactAtPointsMonotoneBetweenLinearBeyond) {
  ProfileGrid grid;
  for (const auto& [x, y, t] : std::vector<std::tuple<double, double, double>>{
           {1, 0, 10}, {1, 100, 30}, {4, 0, 40}, {4, 100, 100}, {4, 200, 130}}) {
    grid.add(x, y, t);
  }
  EXPECT_EQ(grid.at(1, 0), 10);
  EXPECT_EQ(grid.at(4, 100), 100);
  EXPECT_EQ(grid.at(4, 200), 130);
  EXPECT_DOUBLE_EQ(grid.at(2, 50), 20 + (70 - 20) / 3.0);  // rows 1 and 4 at y = 50: 20, 70
  for (double y = 0; y <= 100; y += 7) {
    EXPECT_GE(grid.at(1, y + 1), grid.at(1, y));
    const double mid = grid.at(2.5, y);
    EXPECT_GE(mid, grid.at(1, y));
    EXPECT_LE(mid, grid.at(4, y));
  }
  EXPECT_DOUBLE_EQ(grid.at(4, 300), 160);  // the last slope (30 per 100)
  EXPECT_DOUBLE_EQ(grid.at(0.5, 0), 10);   // below the first row: its value
  EXPECT_DOUBLE_EQ(grid.at(7, 0), 70);     // beyond the last row: the last slope in x
  grid.add(1, 0, 999);                     // a repeated point keeps the first
  EXPECT_EQ(grid.at(1, 0), 10);
}

// A profile folder with one broken mlp.csv (a letter where a number goes, line 3).
std::filesystem::path broken_profile() {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "vidur_broken";
  const auto model = dir / "compute" / "a100" / "org" / "tiny";
  std::filesystem::create_directories(model);
  std::ofstream(model / "mlp.csv")
      << "time_stats.attn_pre_proj.median,n_head,n_kv_head,n_embd,n_expanded_embd,num_tokens,"
         "num_tensor_parallel_workers\n"
         "0.1,4,4,256,512,1,1\n"
         "abc,4,4,256,512,2,1\n";
  return dir;
}

TEST(VidurProfile, BadFilesNameFileLineAndWhatWasExpected) {
  const auto dir = broken_profile();
  const auto path = (dir / "compute/a100/org/tiny/mlp.csv").string();
  const auto rows = read_mlp_profile(path, 1);
  ASSERT_FALSE(rows.is_ok());
  EXPECT_NE(rows.status().message().find("mlp.csv:3"), std::string::npos)
      << rows.status().message();
  EXPECT_NE(rows.status().message().find("time_stats.attn_pre_proj.median"), std::string::npos);
  const auto missing = read_profile_rows(path, {}, {"time_stats.mlp_up_proj.median"});
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.status().message().find("mlp.csv:1"), std::string::npos)
      << missing.status().message();
  // No mlp.csv of the model's geometry: the message lists what there is.
  const auto none = find_mlp_profile(dir.string(), "a100", {4096, 32, 32, 11008});
  ASSERT_FALSE(none.is_ok());
  EXPECT_NE(none.status().message().find("hidden 256, 4 heads"), std::string::npos)
      << none.status().message();
  const auto device = find_mlp_profile(dir.string(), "h100", {256, 4, 4, 512});
  EXPECT_NE(device.status().message().find("devices in the profile: a100"), std::string::npos)
      << device.status().message();
}

constexpr const char* kLlama70bTp2 =
    "calibration/vidur/compute/a100/meta-llama/Llama-2-70b-hf/attention_tp2_e2d00e9.csv";

std::unique_ptr<ProfileCostModel> shared_profile_model(uint32_t tp) {
  CostModelConfig config;
  config.kind = CostModelKind::kProfile;
  config.profiles = (testing::data_dir() / "calibration/vidur").string();
  auto model =
      ProfileCostModel::load(config, *load_model("llama2-70b"), *load_device("a100-80g"), tp);
  EXPECT_TRUE(model.is_ok()) << model.status().message();
  return model.is_ok() ? std::move(*model) : nullptr;
}

double op_time(const CostBreakdown& cost, const std::string& name) {
  for (const OperatorTime& op : cost.operators) {
    if (op.name == name) return op.time_s / static_cast<double>(op.count);
  }
  return -1;
}

TEST(ProfileCostModel, ReproducesTheSharedProfileAtItsGridPoints) {
  KVSIM_REQUIRE_DATA(kLlama70bTp2);
  const auto model = shared_profile_model(2);
  ASSERT_NE(model, nullptr);
  const std::string mlp =
      (testing::data_dir() / "calibration/vidur/compute/a100/meta-llama/Llama-2-70b-hf/mlp.csv")
          .string();
  const auto rows =
      read_profile_rows(mlp, {{"num_tensor_parallel_workers", "2"}, {"num_tokens", "512"}},
                        {"time_stats.mlp_up_proj.median", "time_stats.add.median"});
  ASSERT_TRUE(rows.is_ok() && rows->size() == 1);
  const auto attention = read_profile_rows(
      (testing::data_dir() / kLlama70bTp2).string(),
      {{"is_prefill", "True"}, {"prefill_chunk_size", "512"}, {"kv_cache_size", "0"}},
      {"time_stats.attn_prefill.median"});
  ASSERT_TRUE(attention.is_ok() && attention->size() == 1);
  const CostBreakdown cost = model->explain(*parse_batch_spec("prefill:1x512"));
  EXPECT_DOUBLE_EQ(op_time(cost, "mlp_up_proj"), (*rows)[0][0] * 1e-3);
  EXPECT_DOUBLE_EQ(op_time(cost, "add"), (*rows)[0][1] * 1e-3);
  EXPECT_DOUBLE_EQ(op_time(cost, "attn_prefill"), (*attention)[0][0] * 1e-3);
  // Between grid points (512 and 520 tokens) the time lies between the two rows'.
  const double at512 = op_time(cost, "mlp_up_proj");
  const double at520 = op_time(model->explain(*parse_batch_spec("prefill:1x520")), "mlp_up_proj");
  for (int m = 513; m < 520; ++m) {
    const double t =
        op_time(model->explain(*parse_batch_spec("prefill:1x" + std::to_string(m))), "mlp_up_proj");
    EXPECT_GE(t, std::min(at512, at520));
    EXPECT_LE(t, std::max(at512, at520));
  }
  // The breakdown adds up to the iteration time.
  EXPECT_EQ(seconds_to_ns(cost.total_s), model->iteration_ns(*parse_batch_spec("prefill:1x512")));
}

TEST(ProfileCostModel, SaysWhichFileOrRowIsMissing) {
  KVSIM_REQUIRE_DATA(kLlama70bTp2);
  CostModelConfig config;
  config.kind = CostModelKind::kProfile;
  config.profiles = (testing::data_dir() / "calibration/vidur").string();
  // No attention profile at TP4; no profile of llama3-8b's geometry on H100.
  const auto tp4 =
      ProfileCostModel::load(config, *load_model("llama2-70b"), *load_device("a100-80g"), 4);
  ASSERT_FALSE(tp4.is_ok());
  EXPECT_NE(tp4.status().message().find("num_tensor_parallel_workers = 4"), std::string::npos)
      << tp4.status().message();
  const auto h100 =
      ProfileCostModel::load(config, *load_model("llama3-8b"), *load_device("h100-sxm"), 1);
  ASSERT_FALSE(h100.is_ok());
  EXPECT_NE(h100.status().message().find("no mlp.csv under"), std::string::npos)
      << h100.status().message();
}

}  // namespace
}  // namespace kvsim::sim
