// EnumNames: both directions from one table, the error for an unknown name, and the enums of
// core that keep their names in one.
#include "core/base/enum_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/cache/cache_event.h"
#include "core/model/device_spec.h"
#include "core/model/dtype.h"
#include "core/model/model_spec.h"

namespace kvsim {
namespace {

using ::testing::ElementsAre;

enum class Colour : uint8_t { kRed, kGreen, kBlue };

constexpr EnumNames<Colour, 2> kWarmAndGreen{{{
    {Colour::kRed, "red"},
    {Colour::kGreen, "green"},
}}};

TEST(EnumNames, NamesAndParsesFromOneTable) {
  EXPECT_EQ(kWarmAndGreen.name(Colour::kGreen), "green");
  EXPECT_EQ(kWarmAndGreen.parse("red", "colour").value(), Colour::kRed);
  EXPECT_THAT(kWarmAndGreen.names(), ElementsAre("red", "green"));
  static_assert(kWarmAndGreen.values()[1] == Colour::kGreen);
}

TEST(EnumNames, AnUnknownNameListsTheValidOnesAndTheNearest) {
  const auto parsed = kWarmAndGreen.parse("gren", "colour");
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_EQ(parsed.status().message(),
            "unknown colour 'gren' (did you mean 'green'?); valid: red, green");
}

TEST(EnumNamesDeathTest, NamingAValueMissingFromTheTableIsABug) {
  EXPECT_DEATH((void)kWarmAndGreen.name(Colour::kBlue), "missing from its name table");
}

TEST(EnumNames, ParseIntoAdaptsAParserForConfigReader) {
  DType dtype = DType::kFp32;
  EXPECT_TRUE(parse_into<parse_dtype>("int4", &dtype).is_ok());
  EXPECT_EQ(dtype, DType::kInt4);
  EXPECT_EQ(parse_into<parse_dtype>("fp166", &dtype).message(),
            "unknown dtype 'fp166' (did you mean 'fp16'?); valid: fp32, fp16, bf16, fp8, int8, "
            "int4");
}

TEST(EnumNames, CoreEnumsRoundTripThroughTheirNames) {
  for (DType dtype : all_dtypes()) EXPECT_EQ(parse_dtype(dtype_name(dtype)).value(), dtype);
  for (AttentionKind kind :
       {AttentionKind::kMha, AttentionKind::kGqa, AttentionKind::kMqa, AttentionKind::kMla}) {
    EXPECT_EQ(parse_attention_kind(attention_kind_name(kind)).value(), kind);
  }
  EXPECT_EQ(kv_layout_name(KvLayout::kNz), "nz");
  EXPECT_EQ(parse_kv_layout("nd").value(), KvLayout::kNd);
  EXPECT_EQ(parse_kv_layout("nzz").status().message(),
            "unknown kv_layout 'nzz' (did you mean 'nz'?); valid: nd, nz");
  EXPECT_EQ(cache_event_name(CacheEventKind::kSwapIn), "swap_in");
}

}  // namespace
}  // namespace kvsim
