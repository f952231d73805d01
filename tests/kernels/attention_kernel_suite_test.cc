// One behavioural suite run against every attention kernel (each adapter of
// kernel_adapters.h, fp32 and fp16 storage, quantized decode, flash prefill), each with its own
// tolerance against the oracle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "kernels/kernel_adapters.h"
#include "kernels/kernel_validation.h"

namespace kvsim::kernels {
namespace {

class AttentionKernelSuite : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override { adapter_ = std::move(attention_kernel_adapters()[GetParam()]); }

  // A one-sequence case with deterministic random Q, K, V.
  AttentionCase make_case(AttentionShape shape, uint32_t num_keys, uint32_t num_queries,
                          uint32_t block_size, uint64_t seed) const {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    AttentionCase c;
    c.shape = shape;
    c.block_size = block_size;
    CaseSequence seq;
    seq.num_keys = num_keys;
    seq.num_queries = adapter_->kind() == CaseKind::kDecode ? 1 : num_queries;
    seq.q.resize(size_t{seq.num_queries} * shape.q_width());
    seq.k.resize(size_t{num_keys} * shape.kv_width());
    seq.v.resize(seq.k.size());
    for (auto* x : {&seq.q, &seq.k, &seq.v}) {
      for (float& value : *x) value = normal(rng);
    }
    c.sequences.push_back(std::move(seq));
    return c;
  }

  std::vector<float> stored_v(const AttentionCase& c) const {
    return adapter_->stored(c, c.sequences[0].v, false);
  }

  std::unique_ptr<AttentionKernelAdapter> adapter_;
};

TEST_P(AttentionKernelSuite, MatchesTheOracleOnRandomCasesWithinItsTolerance) {
  KernelReport report;
  report.tolerance = adapter_->tolerance();
  std::mt19937_64 rng(20240607);
  for (int i = 0; i < 40; ++i) {
    const AttentionCase c = random_case(adapter_->kind(), &rng);
    const auto expected = oracle_outputs(c, [&](const std::vector<float>& x, bool is_key) {
      return adapter_->stored(c, x, is_key);
    });
    const auto actual = adapter_->run(c, nullptr);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t b = 0; b < actual.size(); ++b) add_case_error(actual[b], expected[b], &report);
  }
  EXPECT_TRUE(report.pass) << adapter_->name() << " max_rel " << report.max_rel_err;
  EXPECT_GT(report.max_abs_err, 0.0) << "fp32 against double should not be exact everywhere";
}

TEST_P(AttentionKernelSuite, ASingleKeyReturnsItsValue) {
  const AttentionShape shape{4, 2, 24};
  const AttentionCase c = make_case(shape, 1, 1, 5, 1);
  const std::vector<float> v = stored_v(c);
  const std::vector<float> out = adapter_->run(c, nullptr)[0];
  for (uint32_t h = 0; h < shape.num_heads; ++h) {
    for (uint32_t d = 0; d < shape.head_dim; ++d) {
      EXPECT_NEAR(out[h * shape.head_dim + d], v[shape.kv_head(h) * shape.head_dim + d], 1e-6)
          << "head " << h << " dim " << d;
    }
  }
}

TEST_P(AttentionKernelSuite, EqualKeysAverageTheValues) {
  const AttentionShape shape{2, 1, 16};
  AttentionCase c = make_case(shape, 37, 5, 8, 2);
  CaseSequence& seq = c.sequences[0];
  // All-zero keys: every score is 0 whatever the storage (0 survives every quantization).
  std::fill(seq.k.begin(), seq.k.end(), 0.0f);
  const std::vector<float> v = stored_v(c);
  const std::vector<float> out = adapter_->run(c, nullptr)[0];
  // Query i (the last seq.num_queries positions) attends positions 0..pos equally.
  for (uint32_t i = 0; i < seq.num_queries; ++i) {
    const uint32_t pos = seq.num_keys - seq.num_queries + i;
    for (uint32_t d = 0; d < shape.head_dim; ++d) {
      double mean = 0.0;
      for (uint32_t p = 0; p <= pos; ++p) mean += v[p * shape.kv_width() + d];
      mean /= pos + 1;
      for (uint32_t h = 0; h < shape.num_heads; ++h) {
        EXPECT_NEAR(out[(i * shape.num_heads + h) * shape.head_dim + d], mean, 2e-5);
      }
    }
  }
}

TEST_P(AttentionKernelSuite, AQueryHeadReadsOnlyItsKvHead) {
  const AttentionShape shape{6, 3, 20};  // GQA, group of 2: heads 2, 3 read KV head 1
  AttentionCase c = make_case(shape, 29, 4, 8, 3);
  const std::vector<float> before = adapter_->run(c, nullptr)[0];
  CaseSequence& seq = c.sequences[0];
  for (uint32_t p = 0; p < seq.num_keys; ++p) {
    for (uint32_t d = 0; d < shape.head_dim; ++d) {
      seq.k[(p * shape.kv_heads + 1) * shape.head_dim + d] += 0.5f;
      seq.v[(p * shape.kv_heads + 1) * shape.head_dim + d] -= 0.75f;
    }
  }
  const std::vector<float> after = adapter_->run(c, nullptr)[0];
  for (uint32_t i = 0; i < seq.num_queries; ++i) {
    for (uint32_t h = 0; h < shape.num_heads; ++h) {
      const size_t at = (i * shape.num_heads + h) * shape.head_dim;
      const bool same =
          std::equal(before.begin() + at, before.begin() + at + shape.head_dim, after.begin() + at);
      EXPECT_EQ(same, shape.kv_head(h) != 1) << "query " << i << " head " << h;
    }
  }
}

TEST_P(AttentionKernelSuite, NothingLeaksFromPositionsNotAttended) {
  const AttentionShape shape{2, 2, 32};
  AttentionCase c = make_case(shape, 40, 6, 16, 4);
  CaseSequence& seq = c.sequences[0];
  if (adapter_->kind() == CaseKind::kDecode) seq.positions = {0, 3, 17, 18, 38, 39};
  const std::vector<float> before = adapter_->run(c, nullptr)[0];
  // Decode: position 20 is not attended. Prefill: position 39 is in the future of every query
  // but the last, so only the last query may change.
  const uint32_t changed = adapter_->kind() == CaseKind::kDecode ? 20 : 39;
  for (uint32_t e = 0; e < shape.kv_width(); ++e) {
    seq.k[changed * shape.kv_width() + e] = 5.0f;
    seq.v[changed * shape.kv_width() + e] = -7.0f;
  }
  const std::vector<float> after = adapter_->run(c, nullptr)[0];
  const size_t unaffected = adapter_->kind() == CaseKind::kDecode
                                ? after.size()
                                : (seq.num_queries - 1) * size_t{shape.q_width()};
  EXPECT_TRUE(std::equal(before.begin(), before.begin() + unaffected, after.begin()));
  if (adapter_->kind() == CaseKind::kPrefill) {
    EXPECT_FALSE(std::equal(before.begin() + unaffected, before.end(), after.begin() + unaffected));
  }
}

TEST_P(AttentionKernelSuite, ADominantKeyTakesAllTheWeight) {
  const AttentionShape shape{1, 1, 16};
  AttentionCase c = make_case(shape, 50, 1, 16, 5);
  CaseSequence& seq = c.sequences[0];
  // Make position 7's key parallel to every query and large: softmax ~ one-hot on 7.
  for (uint32_t d = 0; d < shape.head_dim; ++d) {
    seq.k[7 * shape.kv_width() + d] = 40.0f * seq.q[seq.q.size() - shape.head_dim + d];
  }
  const std::vector<float> v = stored_v(c);
  const std::vector<float> out = adapter_->run(c, nullptr)[0];
  const size_t last = out.size() - shape.head_dim;
  for (uint32_t d = 0; d < shape.head_dim; ++d) {
    EXPECT_NEAR(out[last + d], v[7 * shape.kv_width() + d], 1e-3);
  }
}

TEST_P(AttentionKernelSuite, DecodeAttentionSumsAreProbabilitiesPerHead) {
  if (adapter_->kind() != CaseKind::kDecode) GTEST_SKIP() << "prefill kernels report no sums";
  const AttentionShape shape{8, 2, 40};
  AttentionCase c = make_case(shape, 70, 1, 24, 6);
  c.sequences[0].positions = {0, 1, 2, 30, 31, 60, 69};
  std::vector<std::vector<float>> sums;
  adapter_->run(c, &sums);
  ASSERT_EQ(sums.size(), 1u);
  ASSERT_EQ(sums[0].size(), 7u);
  double total = 0.0;
  for (float s : sums[0]) {
    EXPECT_GE(s, 0.0f);
    total += s;
  }
  EXPECT_NEAR(total, shape.num_heads, 1e-4);  // each head's weights sum to 1
}

std::string adapter_name(const ::testing::TestParamInfo<size_t>& info) {
  return attention_kernel_adapters()[info.param]->name();
}

INSTANTIATE_TEST_SUITE_P(EveryKernel, AttentionKernelSuite,
                         ::testing::Range<size_t>(0, attention_kernel_adapters().size()),
                         adapter_name);

}  // namespace
}  // namespace kvsim::kernels
