// vLLM v1's sliding-window rule, pinned as a table. vLLM (vllm/v1/core/
// single_type_kv_cache_manager.py at 9aaf83ef502fc37bc647f6e474314d48ba36cd1c, the commit
// tests/data/vllm_v1_conformance/SOURCES.md pins):
//
//   SlidingWindowManager.get_num_skipped_tokens(num_computed_tokens)
//       = max(0, num_computed_tokens - sliding_window + 1)
//   SingleTypeKVCacheManager.remove_skipped_blocks(request_id, total_computed_tokens)
//       frees blocks [0, min(num_skipped_tokens // block_size, len(blocks))), replacing each
//       with the null block (it runs at the start of allocate_slots, before new blocks)
//
// so with W = sliding_window a sequence keeps the W - 1 keys before the token it computes next:
// kvsim's retention window:W-1 (sliding_window_retention), for a uniform sliding-window model
// (simulator/setup/engine_setup.cc) and a hybrid model's sliding group
// (core/cache/kv_cache_coordinator.cc) alike.
#include <gtest/gtest.h>

#include "core/base/checked_math.h"
#include "core/cache/kv_cache_manager.h"
#include "core/cache/retention_policy.h"

namespace kvsim {
namespace {

struct Row {
  uint32_t sliding_window;
  uint64_t num_computed_tokens;
  uint32_t block_size;
  uint32_t num_freed_blocks;  // vLLM: min(max(0, n - W + 1) // block_size, blocks held)
};

// Each row worked by hand from the two functions above.
constexpr Row kRows[] = {
    {4, 7, 1, 4},           // get_num_skipped_tokens' own docstring example: tokens 0..3 skipped
    {4, 7, 2, 2},           // 4 skipped tokens: blocks 0, 1
    {4, 3, 2, 0},           // 3 - 4 + 1 = 0: all inside the window
    {4, 4, 2, 0},           // 1 skipped token: no whole block
    {4, 5, 2, 1},           // 2 skipped tokens: block 0 (window:W would keep it)
    {9, 16, 4, 2},          // 8 skipped: blocks 0, 1
    {16, 47, 16, 2},        // 32 skipped: blocks 0, 1 (window:W would free 1)
    {16, 46, 16, 1},        // 31 skipped
    {4096, 4100, 16, 0},    // Mistral-7B's window: 5 skipped
    {4096, 4112, 16, 1},    // 17 skipped
    {4096, 8207, 16, 257},  // 4112 skipped = 257 blocks exactly
    {2047, 4096, 16, 128},  // Phi-3-mini's window: 2050 skipped -> 128 blocks
};

TEST(SlidingWindowConformance, TheWindowIsWMinus1KeysBeforeTheNextToken) {
  EXPECT_EQ(sliding_window_retention(4096).value(),
            (RetentionSpec{RetentionKind::kWindow, 0, 4095}));
  EXPECT_EQ(sliding_window_retention(2).value(), (RetentionSpec{RetentionKind::kWindow, 0, 1}));
  EXPECT_FALSE(sliding_window_retention(1).is_ok());
}

// Each row through a KvCacheManager: the request holds num_computed_tokens; the next token's
// allocate_slots frees (nulls) exactly vLLM's blocks, from the front of its table.
TEST(SlidingWindowConformance, FreesTheBlocksVllmSkips) {
  for (const Row& row : kRows) {
    SCOPED_TRACE(::testing::Message() << "W=" << row.sliding_window << " n="
                                      << row.num_computed_tokens << " bs=" << row.block_size);
    const uint64_t held = ceil_div(row.num_computed_tokens + 1, uint64_t{row.block_size});
    KvCacheConfig config;
    config.num_blocks = static_cast<uint32_t>(held) + 2;  // + the null block, + one spare
    config.block_size = row.block_size;
    config.eviction = EvictionKind::kNone;
    config.retention = make_retention_policy(sliding_window_retention(row.sliding_window).value());
    KvCacheManager cache = std::move(KvCacheManager::create(config)).value();
    cache.add_request(1, row.num_computed_tokens + 1, {});
    ASSERT_TRUE(cache.allocate_slots(1, row.num_computed_tokens).has_value());
    ASSERT_TRUE(cache.allocate_slots(1, 1).has_value());
    const std::span<const BlockId> table = cache.block_table(1);
    uint32_t freed = 0;
    while (freed < table.size() && table[freed] == kNullBlock) ++freed;
    EXPECT_EQ(freed, row.num_freed_blocks);
    for (size_t k = freed; k < table.size(); ++k) EXPECT_NE(table[k], kNullBlock) << k;
  }
}

}  // namespace
}  // namespace kvsim
