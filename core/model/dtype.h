// Element types of weights and of KV-cache storage.
//
// Sizes are kept in bits so that sub-byte types (int4) stay exact: bytes are derived with
// bits / 8 only where a whole number is guaranteed, never with a literal `2`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace kvsim {

enum class DType : uint8_t {
  kFp32,
  kFp16,
  kBf16,
  kFp8,  // e4m3/e5m2: one byte; kvsim does not model the format further
  kInt8,
  kInt4,
};

// Every dtype in declaration order.
std::span<const DType> all_dtypes();

// Storage size of one element in bits (32, 16, 16, 8, 8, 4).
uint32_t dtype_bits(DType dtype);

// YAML / CLI name: "fp32", "fp16", "bf16", "fp8", "int8", "int4".
std::string_view dtype_name(DType dtype);

// Parses a dtype name; an unknown name lists the valid ones.
StatusOr<DType> parse_dtype(std::string_view name);

// True for int8 and int4, the integer types that carry quantization scales.
bool is_integer_dtype(DType dtype);

}  // namespace kvsim
