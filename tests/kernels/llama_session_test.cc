// The forward pass on the paged KV cache: cached decoding equals full recomputation at every
// position; layouts agree; retention policies evict and free blocks as they say; quantized
// caches stay close.
#include "kernels/llama_session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <sstream>

#include "kernels/kv_policy.h"
#include "kernels/tokenizer.h"
#include "tests/kernels/kjv_tiny.h"
#include "tests/kernels/tiny_llama.h"
#include "tests/test_data.h"

namespace kvsim::kernels {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// max |a - b| / max |b| of row r.
double row_rel_error(const RowMatrix& a, const RowMatrix& b, Eigen::Index r) {
  return (a.row(r) - b.row(r)).cwiseAbs().maxCoeff() / b.row(r).cwiseAbs().maxCoeff();
}

std::vector<int> random_tokens(size_t n, uint32_t vocab, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(3, static_cast<int>(vocab) - 1);
  std::vector<int> tokens = {kBosToken};
  while (tokens.size() < n) tokens.push_back(pick(rng));
  return tokens;
}

LlamaSession make_session(const LlamaModel& model, KvStoreOptions store,
                          std::string_view policy = "full", uint32_t sequences = 1) {
  auto p = parse_kv_policy(policy);
  EXPECT_TRUE(p.is_ok()) << p.status().message();
  store.quant = p->quant;
  store.kivi = p->kivi;
  auto session = LlamaSession::create(model, {store, p->retention, 0, sequences});
  EXPECT_TRUE(session.is_ok()) << session.status().message();
  return std::move(session).value();
}

// Token by token through the session: logits [n, vocab].
RowMatrix decode_all(LlamaSession* session, const std::vector<int>& tokens) {
  RowMatrix all(static_cast<Eigen::Index>(tokens.size()), 0), row;
  for (size_t i = 0; i < tokens.size(); ++i) {
    session->append({&tokens[i], 1}, &row);
    if (i == 0) all.resize(static_cast<Eigen::Index>(tokens.size()), row.cols());
    all.row(static_cast<Eigen::Index>(i)) = row.row(0);
  }
  return all;
}

struct StoreCase {
  const char* name;
  KvStoreOptions store;
};

std::vector<StoreCase> fp32_stores() {
  return {{"nd_block16", {false, DType::kFp32, KvQuant::kNone, {}, 16}},
          {"nd_block5", {false, DType::kFp32, KvQuant::kNone, {}, 5}},
          {"nz_block7", {true, DType::kFp32, KvQuant::kNone, {}, 7}}};
}

TEST(LlamaSessionTest, CachedDecodingEqualsFullRecomputationAtEveryPosition) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 11));
  const std::vector<int> tokens = random_tokens(64, 262, 1);  // the whole seq_len
  const RowMatrix reference = model.forward_reference(tokens);
  for (const StoreCase& c : fp32_stores()) {
    LlamaSession decode = make_session(model, c.store);
    const RowMatrix decoded = decode_all(&decode, tokens);
    LlamaSession prefill = make_session(model, c.store);
    RowMatrix prefilled;  // one chunk: flash on ND, token by token on NZ
    prefill.append({tokens.data(), 40}, &prefilled);
    RowMatrix rest;
    prefill.append({tokens.data() + 40, tokens.size() - 40}, &rest);  // a second chunk
    for (Eigen::Index r = 0; r < reference.rows(); ++r) {
      ASSERT_LE(row_rel_error(decoded, reference, r), 1e-4) << c.name << " position " << r;
      const RowMatrix chunk_row = r < 40 ? prefilled.row(r) : rest.row(r - 40);
      ASSERT_LE(row_rel_error(chunk_row, reference.row(r), 0), 1e-4) << c.name << " chunked " << r;
    }
  }
}

TEST(LlamaSessionTest, Fp16StorageStaysCloseToFullRecomputation) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 12));
  const std::vector<int> tokens = random_tokens(48, 262, 2);
  const RowMatrix reference = model.forward_reference(tokens);
  for (bool nz : {false, true}) {
    LlamaSession session = make_session(model, {nz, DType::kFp16, KvQuant::kNone, {}, 16});
    const RowMatrix decoded = decode_all(&session, tokens);
    for (Eigen::Index r = 0; r < reference.rows(); ++r) {
      EXPECT_LE(row_rel_error(decoded, reference, r), 1e-2) << "nz " << nz << " position " << r;
    }
  }
}

TEST(LlamaSessionTest, NdNzAndBlockSizesAgreeBitForBit) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 13));
  const std::vector<int> tokens = random_tokens(50, 262, 3);
  std::vector<RowMatrix> logits;
  for (const StoreCase& c : fp32_stores()) {
    LlamaSession session = make_session(model, c.store);
    logits.push_back(decode_all(&session, tokens));
  }
  for (size_t i = 1; i < logits.size(); ++i) {
    EXPECT_LE((logits[i] - logits[0]).cwiseAbs().maxCoeff(),
              1e-6 * logits[0].cwiseAbs().maxCoeff());
    EXPECT_TRUE(logits[i] == logits[0]) << fp32_stores()[i].name;
  }
}

TEST(LlamaSessionTest, FullAndAWindowOfTheWholeContextAreIdentical) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 14));
  const std::vector<int> tokens = random_tokens(64, 262, 4);
  LlamaSession full = make_session(model, {}, "full");
  LlamaSession window = make_session(model, {}, "window:64");
  EXPECT_TRUE(decode_all(&full, tokens) == decode_all(&window, tokens));
  EXPECT_EQ(window.held_positions().size(), 64u);
}

TEST(LlamaSessionTest, ABatchDecodesEachSequenceAsIfAlone) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 15));
  const std::vector<int> a = random_tokens(30, 262, 5), b = random_tokens(20, 262, 6);
  LlamaSession alone_a = make_session(model, {}), alone_b = make_session(model, {});
  const RowMatrix expected_a = decode_all(&alone_a, a), expected_b = decode_all(&alone_b, b);
  LlamaSession batch = make_session(model, {}, "full", 2);
  RowMatrix logits;
  for (size_t i = 0; i < a.size(); ++i) {  // b is shorter: it leaves the batch after 20 steps
    const std::vector<int> step =
        i < b.size() ? std::vector<int>{a[i], b[i]} : std::vector<int>{a[i]};
    batch.decode_step(step, &logits);
    EXPECT_LE(row_rel_error(logits, expected_a.row(i), 0), 1e-5) << i;
    if (i < b.size()) {
      EXPECT_LE(row_rel_error(logits.row(1), expected_b.row(i), 0), 1e-5) << i;
    }
  }
  EXPECT_EQ(batch.num_tokens(0), 30u);
  EXPECT_EQ(batch.num_tokens(1), 20u);
}

TEST(LlamaSessionTest, AWindowEvictsOldPositionsAndFreesTheirBlocks) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 16));
  LlamaSession session =
      make_session(model, {false, DType::kFp32, KvQuant::kNone, {}, 4}, "window:8");
  decode_all(&session, random_tokens(30, 262, 7));
  EXPECT_THAT(session.held_positions(), ElementsAre(22, 23, 24, 25, 26, 27, 28, 29));
  EXPECT_EQ(session.max_attended(), 8u);
  const auto table = session.block_table();
  ASSERT_EQ(table.size(), 8u);  // positions 0..29 in blocks of 4
  for (size_t b = 0; b < table.size(); ++b) EXPECT_EQ(holds_block(table[b]), b >= 5) << b;
  EXPECT_EQ(session.cache_manager().num_free_blocks(), 16u - 3u);
}

TEST(LlamaSessionTest, SinkTokensKeepTheFirstBlock) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 17));
  LlamaSession session =
      make_session(model, {false, DType::kFp32, KvQuant::kNone, {}, 4}, "sink:2,6");
  decode_all(&session, random_tokens(30, 262, 8));
  EXPECT_THAT(session.held_positions(), ElementsAre(0, 1, 24, 25, 26, 27, 28, 29));
  const auto table = session.block_table();
  for (size_t b = 0; b < table.size(); ++b) EXPECT_EQ(holds_block(table[b]), b == 0 || b >= 6) << b;
}

TEST(LlamaSessionTest, HeavyHittersAreRankedByAccumulatedAttention) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 18));
  LlamaSession h2o = make_session(model, {false, DType::kFp32, KvQuant::kNone, {}, 4}, "h2o:6,4");
  const auto policy = parse_kv_policy("h2o:6,4")->retention;
  const std::vector<int> tokens = random_tokens(40, 262, 9);
  constexpr double kMassPerStep = 2 * 4;  // each layer's 4 heads spread 1 each over positions
  RowMatrix row;
  std::vector<uint64_t> expected;
  for (size_t i = 0; i < tokens.size(); ++i) {
    // What the policy must keep at this step, from the scores accumulated so far.
    std::vector<uint64_t> held(h2o.held_positions().begin(), h2o.held_positions().end());
    std::vector<float> scores(h2o.held_scores().begin(), h2o.held_scores().end());
    held.push_back(i);
    scores.push_back(0.0f);
    policy->select(held, scores, &expected);
    h2o.append({&tokens[i], 1}, &row);
    ASSERT_THAT(h2o.held_positions(), ::testing::ElementsAreArray(expected)) << "step " << i;
    const auto after = h2o.held_scores();
    const double mass = std::accumulate(after.begin(), after.end(), 0.0);
    if (i < 10)
      EXPECT_NEAR(mass, kMassPerStep * (i + 1), 1e-4) << "nothing evicted yet";
    else
      EXPECT_LT(mass, kMassPerStep * (i + 1)) << "evicted positions take their scores away";
  }
  const auto held = h2o.held_positions();
  ASSERT_EQ(held.size(), 10u);
  EXPECT_THAT(std::vector<uint64_t>(held.end() - 4, held.end()), ElementsAre(36, 37, 38, 39));
  // The evicted positions' blocks are released, the kept ones' are not.
  const auto table = h2o.block_table();
  for (size_t b = 0; b < table.size(); ++b) {
    const bool used = std::any_of(held.begin(), held.end(), [&](uint64_t p) { return p / 4 == b; });
    EXPECT_EQ(holds_block(table[b]), used) << b;
  }
}

TEST(LlamaSessionTest, QuantizedCachesStayClose) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 19));
  const std::vector<int> tokens = random_tokens(64, 262, 10);
  LlamaSession fp32 = make_session(model, {});
  const RowMatrix exact = decode_all(&fp32, tokens);
  // KIVI with a residual longer than the sequence quantizes nothing: bit-identical.
  LlamaSession kivi_idle = make_session(model, {}, "int4:4,64");
  EXPECT_TRUE(decode_all(&kivi_idle, tokens) == exact);
  for (const char* spec : {"int8", "int4:4,8"}) {
    LlamaSession session = make_session(model, {}, spec);
    const RowMatrix logits = decode_all(&session, tokens);
    double worst = 0.0;
    for (Eigen::Index r = 0; r < exact.rows(); ++r)
      worst = std::max(worst, row_rel_error(logits, exact, r));
    EXPECT_GT(worst, 0.0) << spec;
    EXPECT_LT(worst, spec[3] == '8' ? 0.05 : 0.2) << spec;
  }
}

TEST(LlamaSessionTest, ConfigurationErrorsAreStatuses) {
  const LlamaModel model(testing::random_weights(testing::tiny_config(), 20));
  SessionOptions too_long;
  too_long.max_tokens = 65;
  EXPECT_THAT(LlamaSession::create(model, too_long).status().message(), HasSubstr("seq_len 64"));
  SessionOptions quant_and_evict;
  quant_and_evict.store.quant = KvQuant::kInt8;
  quant_and_evict.retention = parse_kv_policy("window:8")->retention;
  EXPECT_THAT(LlamaSession::create(model, quant_and_evict).status().message(),
              HasSubstr("full retention"));
  SessionOptions kivi;
  kivi.store.quant = KvQuant::kInt4Kivi;
  kivi.store.kivi = {3, 8};
  EXPECT_THAT(LlamaSession::create(model, kivi).status().message(), HasSubstr("must divide"));
  SessionOptions bf16;
  bf16.store.dtype = DType::kBf16;
  EXPECT_THAT(LlamaSession::create(model, bf16).status().message(), HasSubstr("fp32 or fp16"));
}

TEST(SharedModelTest, KjvTinyCachedDecodingEqualsFullRecomputation) {
  KVSIM_REQUIRE_DATA(testing::kKjvEvalText);
  auto weights = testing::load_kjv_tiny();
  ASSERT_TRUE(weights.is_ok()) << weights.status().message();
  const LlamaModel model(std::move(weights).value());
  std::vector<int> tokens = {kBosToken};
  for (unsigned char c : testing::kjv_eval_text(300)) tokens.push_back(c + 3);  // byte vocab
  const RowMatrix reference = model.forward_reference(tokens);
  for (bool nz : {false, true}) {
    LlamaSession session = make_session(model, {nz, DType::kFp32, KvQuant::kNone, {}, 16});
    const RowMatrix decoded = decode_all(&session, tokens);
    for (Eigen::Index r = 0; r < reference.rows(); ++r) {
      ASSERT_LE(row_rel_error(decoded, reference, r), 1e-4) << "nz " << nz << " position " << r;
    }
  }
}

}  // namespace
}  // namespace kvsim::kernels
