// ceil_div and the checked operations at the edges of their types.
#include "core/base/checked_math.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace kvsim {
namespace {

constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();
constexpr uint32_t kMax32 = std::numeric_limits<uint32_t>::max();

// Usable in constant expressions, and the result has the wider operand's type.
static_assert(ceil_div(uint32_t{10}, uint32_t{4}) == 3u);
static_assert(std::is_same_v<decltype(ceil_div(uint32_t{1}, uint32_t{1})), uint32_t>);
static_assert(std::is_same_v<decltype(ceil_div(uint64_t{1}, uint32_t{1})), uint64_t>);
static_assert(std::is_same_v<decltype(ceil_div(uint32_t{1}, uint64_t{1})), uint64_t>);

TEST(CeilDiv, RoundsUpOnlyWhenThereIsARemainder) {
  EXPECT_EQ(ceil_div(0u, 16u), 0u);
  EXPECT_EQ(ceil_div(1u, 16u), 1u);
  EXPECT_EQ(ceil_div(16u, 16u), 1u);
  EXPECT_EQ(ceil_div(17u, 16u), 2u);
  EXPECT_EQ(ceil_div(uint64_t{4096}, 1u), 4096u);
}

TEST(CeilDiv, DoesNotWrapNearTheTypesMaximum) {
  // (a + b - 1) / b would wrap to 0 or 1 here.
  EXPECT_EQ(ceil_div(kMax64, uint64_t{2}), uint64_t{1} << 63);
  EXPECT_EQ(ceil_div(kMax64, kMax64), 1u);
  EXPECT_EQ(ceil_div(kMax32, 16u), (uint32_t{1} << 28));
  EXPECT_EQ(ceil_div(kMax32 - 1, kMax32), 1u);
}

TEST(CheckedMath, ReportsOverflowAsNoValue) {
  EXPECT_EQ(checked_mul(uint64_t{1} << 32, uint64_t{1} << 31), uint64_t{1} << 63);
  EXPECT_FALSE(checked_mul(uint64_t{1} << 32, uint64_t{1} << 32).has_value());
  EXPECT_EQ(checked_add(kMax64 - 1, 1), kMax64);
  EXPECT_FALSE(checked_add(kMax64, 1).has_value());
}

}  // namespace
}  // namespace kvsim
