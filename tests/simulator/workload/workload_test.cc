#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/base/units.h"
#include "simulator/engine/request_hashes.h"
#include "simulator/workload/random.h"
#include "simulator/workload/synthetic_workload.h"

namespace kvsim::sim {
namespace {

std::vector<RequestSpec> generate(const SyntheticConfig& config, uint64_t seed,
                                  double time_scale = 1.0) {
  auto source = SyntheticSource::create(config, seed, time_scale);
  EXPECT_TRUE(source.is_ok()) << source.status().message();
  std::vector<RequestSpec> out;
  RequestSpec r;
  while (*(*source)->next(&r)) out.push_back(r);
  return out;
}

struct GapStats {
  double mean = 0, cv = 0;
};

GapStats gap_stats(const std::vector<RequestSpec>& requests) {
  std::vector<double> gaps;
  for (size_t i = 1; i < requests.size(); ++i) {
    gaps.push_back(ns_to_s(requests[i].arrival_ns - requests[i - 1].arrival_ns));
  }
  double sum = 0, sq = 0;
  for (double g : gaps) sum += g;
  const double mean = sum / gaps.size();
  for (double g : gaps) sq += (g - mean) * (g - mean);
  return {mean, std::sqrt(sq / gaps.size()) / mean};
}

TEST(Random, SameSeedSameNumbersStreamsDiffer) {
  Rng a(5), b(5), c(5, 1);
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.next_u64();
    EXPECT_EQ(x, b.next_u64());
    EXPECT_NE(x, c.next_u64());
  }
  Rng r(9);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t v = r.uniform_int(3, 7);
    EXPECT_GE(v, 3u);
    EXPECT_LE(v, 7u);
  }
}

TEST(Synthetic, PoissonGammaConstantArrivals) {
  SyntheticConfig config;
  config.num_requests = 40000;
  config.rate_per_s = 20;
  const GapStats poisson = gap_stats(generate(config, 1));
  EXPECT_NEAR(poisson.mean, 0.05, 0.05 * 0.02);
  EXPECT_NEAR(poisson.cv, 1.0, 0.03);

  config.arrival = ArrivalProcess::kGamma;
  config.cv = 3.0;
  const GapStats gamma = gap_stats(generate(config, 1));
  EXPECT_NEAR(gamma.mean, 0.05, 0.05 * 0.05);
  EXPECT_NEAR(gamma.cv, 3.0, 0.3);

  config.arrival = ArrivalProcess::kConstant;
  const auto constant = generate(config, 1, /*time_scale=*/2.0);
  EXPECT_EQ(constant[0].arrival_ns, 0);
  EXPECT_EQ(constant[10].arrival_ns, 1'000'000'000);  // 10 gaps of 0.05 s, doubled
}

TEST(Synthetic, LengthDistributions) {
  SyntheticConfig config;
  config.num_requests = 20000;
  config.prompt_tokens.kind = LengthKind::kUniform;
  config.prompt_tokens.min = 10;
  config.prompt_tokens.max = 20;
  config.output_tokens.kind = LengthKind::kLognormal;
  config.output_tokens.mean = 200;
  config.output_tokens.sigma = 0.5;
  config.output_tokens.min = 1;
  config.output_tokens.max = 100000;
  const auto requests = generate(config, 3);
  double output_sum = 0;
  std::array<int, 21> seen{};
  for (const RequestSpec& r : requests) {
    ASSERT_GE(r.prompt_tokens, 10u);
    ASSERT_LE(r.prompt_tokens, 20u);
    ++seen[r.prompt_tokens];
    output_sum += r.output_tokens;
  }
  for (uint32_t v = 10; v <= 20; ++v) EXPECT_GT(seen[v], 1500) << v;
  EXPECT_NEAR(output_sum / requests.size(), 200.0, 4.0);
}

TEST(Synthetic, SharedPrefixGroupsAndEmpiricalLengths) {
  const std::string trace = ::testing::TempDir() + "/lengths.csv";
  std::ofstream(trace) << "arrival_s,prompt_tokens,output_tokens\n0,100,1\n1,300,3\n2,500,5\n";
  SyntheticConfig config;
  config.num_requests = 5000;
  config.prompt_tokens.kind = LengthKind::kEmpirical;
  config.prompt_tokens.trace = trace;
  config.output_tokens = config.prompt_tokens;
  config.shared_prefix = {4, 128, 0.25};
  const auto requests = generate(config, 11);
  int grouped = 0;
  for (const RequestSpec& r : requests) {
    ASSERT_EQ(r.prompt_tokens, r.output_tokens * 100u);  // drawn from the same row
    if (r.prefix_group) {
      ++grouped;
      EXPECT_LT(*r.prefix_group, 4u);
      EXPECT_EQ(r.prefix_tokens, 100u == r.prompt_tokens ? 100u : 128u);
    }
  }
  EXPECT_NEAR(grouped / 5000.0, 0.25, 0.02);
  // Same seed, same workload; another seed, another.
  const auto again = generate(config, 11);
  const auto other = generate(config, 12);
  EXPECT_EQ(again[4000].arrival_ns, requests[4000].arrival_ns);
  EXPECT_NE(other[4000].arrival_ns, requests[4000].arrival_ns);
}

TEST(Synthetic, InvalidConfigsAreRejected) {
  SyntheticConfig config;
  config.rate_per_s = 0;
  EXPECT_FALSE(SyntheticSource::create(config, 1, 1.0).is_ok());
  config.rate_per_s = 1;
  config.shared_prefix = {0, 10, 0.5};
  EXPECT_FALSE(SyntheticSource::create(config, 1, 1.0).is_ok());
  config.shared_prefix = {};
  config.prompt_tokens.kind = LengthKind::kEmpirical;
  config.prompt_tokens.trace = "/nonexistent.csv";
  EXPECT_FALSE(SyntheticSource::create(config, 1, 1.0).is_ok());
}

TEST(RequestHashes, GroupsShareTheirPrefixBlocksOnly) {
  RequestSpec a, b;
  a.id = 1;
  b.id = 2;
  a.prompt_tokens = b.prompt_tokens = 100;
  a.prefix_group = b.prefix_group = 5;
  a.prefix_tokens = b.prefix_tokens = 40;
  std::vector<BlockHash> ha, hb;
  prompt_block_hashes(a, 16, &ha);
  prompt_block_hashes(b, 16, &hb);
  ASSERT_EQ(ha.size(), 6u);  // floor(100 / 16) full blocks
  EXPECT_EQ(ha[0], hb[0]);
  EXPECT_EQ(ha[1], hb[1]);  // blocks 0 and 1 lie inside the 40 shared tokens
  EXPECT_NE(ha[2], hb[2]);  // block 2 straddles the end of the prefix
  EXPECT_NE(unique_block_hash(unique_block_seed(1), 7), unique_block_hash(unique_block_seed(2), 7));
  EXPECT_NE(unique_block_hash(unique_block_seed(1), 7), unique_block_hash(unique_block_seed(1), 8));
}

}  // namespace
}  // namespace kvsim::sim
