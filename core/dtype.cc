#include "core/dtype.h"

#include <array>

#include "core/names.h"

namespace kvsim {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  uint32_t bits;
};

constexpr std::array<DTypeInfo, 6> kDTypes = {{
    {DType::kFp32, "fp32", 32},
    {DType::kFp16, "fp16", 16},
    {DType::kBf16, "bf16", 16},
    {DType::kFp8, "fp8", 8},
    {DType::kInt8, "int8", 8},
    {DType::kInt4, "int4", 4},
}};

constexpr std::array<DType, 6> kAll = {DType::kFp32, DType::kFp16, DType::kBf16,
                                       DType::kFp8,  DType::kInt8, DType::kInt4};

const DTypeInfo& info(DType dtype) {
  const auto index = static_cast<size_t>(dtype);
  KVSIM_CHECK(index < kDTypes.size(), "dtype out of range");
  return kDTypes[index];
}

}  // namespace

std::span<const DType> all_dtypes() { return kAll; }

uint32_t dtype_bits(DType dtype) { return info(dtype).bits; }

std::string_view dtype_name(DType dtype) { return info(dtype).name; }

StatusOr<DType> parse_dtype(std::string_view name) {
  for (const DTypeInfo& entry : kDTypes) {
    if (entry.name == name) return entry.dtype;
  }
  std::vector<std::string> valid;
  for (const DTypeInfo& entry : kDTypes) valid.emplace_back(entry.name);
  return Status::invalid_argument(unknown_name_message("dtype", name, valid));
}

Status parse_dtype_into(std::string_view name, DType* out) {
  KVSIM_ASSIGN_OR_RETURN(*out, parse_dtype(name));
  return Status::ok();
}

bool is_integer_dtype(DType dtype) { return dtype == DType::kInt8 || dtype == DType::kInt4; }

}  // namespace kvsim
