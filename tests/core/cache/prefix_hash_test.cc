// Prefix hashing: token chaining from the fixed seed, and Mooncake hash_ids mapped onto engine
// block sizes that divide 512, are multiples of it, or neither.
#include "core/cache/prefix_hash.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>

namespace kvsim {
namespace {

std::vector<BlockHash> token_hashes(const std::vector<int32_t>& tokens, uint32_t block_size) {
  std::vector<BlockHash> out;
  hash_token_blocks(tokens, block_size, &out);
  return out;
}

std::vector<BlockHash> trace_hashes(const std::vector<uint64_t>& ids, uint64_t num_tokens,
                                    uint32_t block_size) {
  std::vector<BlockHash> out;
  hash_trace_blocks(ids, num_tokens, block_size, &out);
  return out;
}

TEST(PrefixHashTest, TokenBlocksChainFromTheSeed) {
  std::vector<int32_t> tokens(10);
  std::iota(tokens.begin(), tokens.end(), 100);
  const std::vector<BlockHash> hashes = token_hashes(tokens, 4);
  ASSERT_EQ(hashes.size(), 2u);  // the partial third block has no hash
  const std::span<const int32_t> all(tokens);
  EXPECT_EQ(hashes[0], hash_block_tokens(kPrefixHashSeed, all.subspan(0, 4)));
  EXPECT_EQ(hashes[1], hash_block_tokens(hashes[0], all.subspan(4, 4)));

  // Same block content after a different first block: a different hash.
  std::vector<int32_t> other = tokens;
  other[0] = 7;
  const std::vector<BlockHash> other_hashes = token_hashes(other, 4);
  EXPECT_NE(other_hashes[0], hashes[0]);
  EXPECT_NE(other_hashes[1], hashes[1]);
  // A change in the second block leaves the first block's hash alone.
  other = tokens;
  other[5] = 7;
  EXPECT_EQ(token_hashes(other, 4)[0], hashes[0]);
  EXPECT_NE(token_hashes(other, 4)[1], hashes[1]);
  // Order matters within a block.
  other = tokens;
  std::swap(other[0], other[1]);
  EXPECT_NE(token_hashes(other, 4)[0], hashes[0]);
}

TEST(PrefixHashTest, TraceBlockSizeDividing512HashesParentTraceBlockAndSubBlock) {
  const std::vector<uint64_t> ids = {11, 22, 33};
  const std::vector<BlockHash> hashes = trace_hashes(ids, 1200, 128);  // 4 per trace block
  ASSERT_EQ(hashes.size(), 9u);                                        // floor(1200 / 128)
  BlockHash parent = kPrefixHashSeed;
  for (uint64_t i = 0; i < hashes.size(); ++i) {
    const BlockHash expected = hash_combine(hash_combine(parent, ids[i / 4]), i % 4);
    EXPECT_EQ(hashes[i], expected) << "block " << i;
    parent = expected;
  }
  // A request sharing only the first trace block shares exactly its four engine blocks.
  const std::vector<BlockHash> other = trace_hashes({11, 99, 33}, 1200, 128);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(other[i], hashes[i]);
  for (size_t i = 4; i < other.size(); ++i) EXPECT_NE(other[i], hashes[i]);
}

TEST(PrefixHashTest, TraceBlockSizeMultipleOf512ChainsItsTraceBlocks) {
  const std::vector<uint64_t> ids = {1, 2, 3, 4, 5};
  const std::vector<BlockHash> hashes = trace_hashes(ids, 2500, 1024);
  ASSERT_EQ(hashes.size(), 2u);
  const BlockHash first = hash_combine(hash_combine(kPrefixHashSeed, 1), 2);
  EXPECT_EQ(hashes[0], first);
  EXPECT_EQ(hashes[1], hash_combine(hash_combine(first, 3), 4));
}

TEST(PrefixHashTest, TraceBlockSizeNeitherUsesOffsetAndOverlappedTraceBlocks) {
  const std::vector<uint64_t> ids = {1, 2, 3};
  // 384-token blocks: [0,384) in trace block 0; [384,768) spans 0 and 1; [768,1152) spans 1, 2.
  const std::vector<BlockHash> hashes = trace_hashes(ids, 1536, 384);
  ASSERT_EQ(hashes.size(), 4u);  // 1536 tokens but ids cover 3 x 512 = 1536
  const BlockHash h0 = hash_combine(hash_combine(kPrefixHashSeed, 0), 1);
  const BlockHash h1 = hash_combine(hash_combine(hash_combine(h0, 384), 1), 2);
  const BlockHash h2 = hash_combine(hash_combine(hash_combine(h1, 256), 2), 3);
  EXPECT_EQ(hashes[0], h0);
  EXPECT_EQ(hashes[1], h1);
  EXPECT_EQ(hashes[2], h2);
  // Sharing trace block 0 only: engine block 0 lies wholly in it and is shared; block 1
  // reaches into trace block 1 and is not.
  const std::vector<BlockHash> other = trace_hashes({1, 7, 3}, 1536, 384);
  EXPECT_EQ(other[0], hashes[0]);
  EXPECT_NE(other[1], hashes[1]);
}

TEST(PrefixHashTest, TraceHashesStopWhereHashIdsOrTokensEnd) {
  EXPECT_EQ(trace_hashes({1}, 5000, 16).size(), 32u);    // one id covers 512 tokens
  EXPECT_EQ(trace_hashes({1, 2}, 520, 16).size(), 32u);  // 520 tokens: 32 full blocks
  EXPECT_TRUE(trace_hashes({}, 100, 16).empty());
  EXPECT_TRUE(trace_hashes({1}, 500, 1024).empty());
}

}  // namespace
}  // namespace kvsim
