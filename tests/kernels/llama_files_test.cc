// The llama2.c checkpoint and tokenizer readers: exact round trips on files the test writes,
// clear errors for malformed or truncated files, and the shared kjv-tiny files when present.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernels/llama_checkpoint.h"
#include "kernels/tokenizer.h"
#include "tests/kernels/kjv_tiny.h"
#include "tests/kernels/tiny_llama.h"
#include "tests/test_data.h"

namespace kvsim::kernels {
namespace {

using kvsim::testing::random_weights;
using kvsim::testing::tiny_config;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string parse_error(std::vector<uint8_t> bytes) {
  auto parsed = parse_llama_checkpoint(bytes, "m.bin");
  EXPECT_FALSE(parsed.is_ok());
  return parsed.is_ok() ? "" : parsed.status().message();
}

void set_int32(std::vector<uint8_t>* bytes, size_t index, int32_t value) {
  std::memcpy(bytes->data() + index * 4, &value, 4);
}

TEST(LlamaCheckpointTest, RoundTripsSharedAndUnsharedClassifiers) {
  for (bool shared : {true, false}) {
    LlamaConfig c = tiny_config();
    c.shared_classifier = shared;
    const LlamaWeights w = random_weights(c, 3);
    const std::vector<uint8_t> bytes = serialize_llama_checkpoint(w);
    auto parsed = parse_llama_checkpoint(bytes, "tiny");
    ASSERT_TRUE(parsed.is_ok()) << parsed.status().message();
    EXPECT_EQ(parsed->config.dim, 32u);
    EXPECT_EQ(parsed->config.n_kv_heads, 2u);
    EXPECT_EQ(parsed->config.shared_classifier, shared);
    EXPECT_EQ(parsed->wq, w.wq);
    EXPECT_EQ(parsed->w2, w.w2);
    EXPECT_EQ(parsed->rms_final, w.rms_final);
    EXPECT_EQ(parsed->classifier(), shared ? w.token_embedding : w.wcls);
  }
}

TEST(LlamaCheckpointTest, RejectsTruncatedAndOversizedFiles) {
  const std::vector<uint8_t> good = serialize_llama_checkpoint(random_weights(tiny_config(), 4));
  EXPECT_THAT(parse_error({good.begin(), good.begin() + 10}),
              HasSubstr("truncated: expected 28 bytes"));
  EXPECT_THAT(parse_error({good.begin(), good.end() - 1}),
              AllOf(HasSubstr("m.bin: truncated"), HasSubstr("the file has")));
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  EXPECT_THAT(parse_error(longer), HasSubstr("trailing bytes"));
  EXPECT_THAT(parse_error({}), HasSubstr("truncated"));
}

TEST(LlamaCheckpointTest, RejectsHeadersOutOfRange) {
  const std::vector<uint8_t> good = serialize_llama_checkpoint(random_weights(tiny_config(), 5));
  std::vector<uint8_t> bad = good;
  set_int32(&bad, 0, -32);  // dim
  EXPECT_THAT(parse_error(bad), HasSubstr("dim = -32, expected 1..65536"));
  bad = good;
  set_int32(&bad, 4, 3);  // n_kv_heads 3 does not divide 4 heads
  EXPECT_THAT(parse_error(bad), HasSubstr("must divide n_heads"));
  bad = good;
  set_int32(&bad, 3, 3);  // 32 / 3 is no whole head_dim
  EXPECT_THAT(parse_error(bad), HasSubstr("head_dim"));
  bad = good;
  set_int32(&bad, 5, 0);
  EXPECT_THAT(parse_error(bad), HasSubstr("vocab_size = 0"));
  bad = good;
  set_int32(&bad, 2, 1 << 30);  // a huge layer count is refused before any allocation
  EXPECT_THAT(parse_error(bad), HasSubstr("n_layers"));
}

TEST(LlamaCheckpointTest, RejectsNonFiniteWeights) {
  std::vector<uint8_t> bad = serialize_llama_checkpoint(random_weights(tiny_config(), 6));
  const float nan = std::nanf("");
  // The first wq element: header, embedding [262, 32], rms_att [2, 32].
  std::memcpy(bad.data() + 28 + (262 * 32 + 2 * 32) * 4, &nan, 4);
  EXPECT_THAT(parse_error(bad), HasSubstr("non-finite weight in tensor wq at element 0"));
}

TEST(LlamaCheckpointTest, MissingFileIsNotFound) {
  auto loaded = load_llama_checkpoint("/nonexistent/model.bin");
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
}

Tokenizer tiny_tokenizer() {
  auto t = Tokenizer::parse(serialize_tokenizer(testing::tiny_pieces(), testing::tiny_scores()),
                            262, "tiny");
  EXPECT_TRUE(t.is_ok()) << t.status().message();
  return std::move(t).value();
}

int byte_token(char c) { return static_cast<unsigned char>(c) + 3; }

TEST(TokenizerTest, EncodesWithBosDummyPrefixMergesAndByteFallback) {
  const Tokenizer t = tiny_tokenizer();
  // " the" wins over "th" and "the" (highest score); "x" stays a byte piece.
  EXPECT_THAT(t.encode("the x", true, false),
              ElementsAre(1, 261, byte_token(' '), byte_token('x')));
  EXPECT_THAT(t.encode("the", false, true, false), ElementsAre(260, 2));  // no prefix: "the"
  EXPECT_THAT(t.encode("", true, false), ElementsAre(1));                 // no dummy prefix
  // "é" (0xC3 0xA9) has no piece: one byte-fallback token per byte.
  EXPECT_THAT(t.encode("\xC3\xA9", false, false, false), ElementsAre(0xC3 + 3, 0xA9 + 3));
}

TEST(TokenizerTest, DecodesAsLlama2c) {
  const Tokenizer t = tiny_tokenizer();
  EXPECT_EQ(t.decode(kBosToken, 261), "the");  // leading space dropped after BOS
  EXPECT_EQ(t.decode(5, 261), " the");
  EXPECT_EQ(t.decode(5, '\n' + 3), "\n");  // "<0x0A>" is the byte
  EXPECT_EQ(t.decode_printable(5, '\n' + 3), "\n");
  EXPECT_EQ(t.decode_printable(5, 7 + 3), "");  // BEL is neither printable nor space
  EXPECT_EQ(t.decode_printable(5, 'A' + 3), "A");
}

TEST(TokenizerTest, RejectsMalformedFiles) {
  const std::vector<uint8_t> good =
      serialize_tokenizer(testing::tiny_pieces(), testing::tiny_scores());
  const auto error = [](std::vector<uint8_t> bytes, uint32_t vocab) {
    auto t = Tokenizer::parse(bytes, vocab, "tok.bin");
    return t.is_ok() ? std::string() : t.status().message();
  };
  EXPECT_THAT(error({good.begin(), good.begin() + 2}, 262),
              HasSubstr("expected an int32 max_token_length"));
  EXPECT_THAT(error({good.begin(), good.end() - 2}, 262),
              AllOf(HasSubstr("token 261 of 262"), HasSubstr("truncated")));
  EXPECT_THAT(error(good, 261), HasSubstr("trailing bytes"));
  EXPECT_THAT(error(good, 263), HasSubstr("token 262 of 263: truncated"));
  std::vector<uint8_t> bad = good;
  const int32_t huge = 1000;
  std::memcpy(bad.data() + 4 + 4, &huge, 4);  // token 0's length > max_token_length
  EXPECT_THAT(error(bad, 262), HasSubstr("token 0 of 262: length 1000"));
}

TEST(SharedModelTest, KjvTinyLoadsWithItsDocumentedShape) {
  KVSIM_REQUIRE_DATA("models/kjv-tiny/model.bin");
  const auto dir = testing::kjv_tiny_dir();
  auto w = testing::load_kjv_tiny();
  ASSERT_TRUE(w.is_ok()) << w.status().message();
  const LlamaConfig& c = w->config;
  EXPECT_EQ(c.dim, 128u);
  EXPECT_EQ(c.hidden_dim, 344u);
  EXPECT_EQ(c.n_layers, 4u);
  EXPECT_EQ(c.n_heads, 8u);
  EXPECT_EQ(c.n_kv_heads, 4u);
  EXPECT_EQ(c.vocab_size, 259u);
  EXPECT_EQ(c.seq_len, 512u);
  EXPECT_TRUE(c.shared_classifier);
  auto t = Tokenizer::load((dir / "tokenizer.bin").string(), c.vocab_size);
  ASSERT_TRUE(t.is_ok()) << t.status().message();
  EXPECT_THAT(t->encode("In", true, false),
              ElementsAre(1, byte_token(' '), byte_token('I'), byte_token('n')));
  EXPECT_EQ(t->decode(1, byte_token(' ')), "");
}

}  // namespace
}  // namespace kvsim::kernels
