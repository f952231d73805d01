// Element types of the KV cache storage the kernels read and write: fp32 (float) and fp16
// (Eigen::half). Every kernel computes in fp32; storage is converted on load and rounded
// (round-to-nearest-even) on store.
//
// Contract: KvElement<T> holds for exactly the storage types the kernels are instantiated for;
// kv_dtype<T>() names it as core/model/dtype.h does, so byte counts come from dtype_bits().
#pragma once

#include <concepts>
#include <cstddef>
#include <type_traits>

#include "core/model/dtype.h"
#include "kernels/eigen_core.h"

namespace kvsim::kernels {

template <typename T>
concept KvElement = std::same_as<T, float> || std::same_as<T, Eigen::half>;

template <KvElement T>
constexpr DType kv_dtype() {
  return std::is_same_v<T, float> ? DType::kFp32 : DType::kFp16;
}

template <KvElement T>
inline float to_float(T value) {
  return static_cast<float>(value);
}

template <KvElement T>
inline T from_float(float value) {
  return static_cast<T>(value);
}

// The value `x` takes once stored as T and read back (identity for float).
template <KvElement T>
inline float round_to_storage(float x) {
  return to_float(from_float<T>(x));
}

// dst[i] = float(src[i]) for i < n.
template <KvElement T>
void convert_to_float(const T* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = to_float(src[i]);
}

// dst[i] = T(src[i]) for i < n.
template <KvElement T>
void convert_from_float(const float* src, T* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = from_float<T>(src[i]);
}

}  // namespace kvsim::kernels
