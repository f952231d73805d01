#include "core/model/dtype.h"

#include <array>

#include "core/base/enum_names.h"

namespace kvsim {
namespace {

constexpr EnumNames<DType, 6> kNames{{{
    {DType::kFp32, "fp32"},
    {DType::kFp16, "fp16"},
    {DType::kBf16, "bf16"},
    {DType::kFp8, "fp8"},
    {DType::kInt8, "int8"},
    {DType::kInt4, "int4"},
}}};
constexpr std::array<DType, 6> kAll = kNames.values();
constexpr std::array<uint32_t, 6> kBits = {32, 16, 16, 8, 8, 4};  // indexed by DType

// all_dtypes() promises declaration order, and kBits is indexed by the enum.
constexpr bool in_declaration_order() {
  for (size_t i = 0; i < kAll.size(); ++i) {
    if (static_cast<size_t>(kAll[i]) != i) return false;
  }
  return true;
}
static_assert(in_declaration_order(), "kNames must list the dtypes in declaration order");

}  // namespace

std::span<const DType> all_dtypes() { return kAll; }

uint32_t dtype_bits(DType dtype) {
  const auto index = static_cast<size_t>(dtype);
  KVSIM_CHECK(index < kBits.size(), "dtype out of range");
  return kBits[index];
}

std::string_view dtype_name(DType dtype) { return kNames.name(dtype); }

StatusOr<DType> parse_dtype(std::string_view name) { return kNames.parse(name, "dtype"); }

bool is_integer_dtype(DType dtype) { return dtype == DType::kInt8 || dtype == DType::kInt4; }

}  // namespace kvsim
