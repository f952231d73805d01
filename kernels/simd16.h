// Vec16: sixteen fp32 lanes, the one vector type the attention kernels compute with.
//
// Every dot product and every weighted sum in the kernels is written with these operations
// and the same lane assignment (element d of a run goes to lane d % 16, tails are zero-filled),
// so kernels that read the same values in the same order give bit-identical results whatever
// the storage layout (contiguous, paged ND, NZ). With AVX-512 (F, BW, VL) the operations map
// to single instructions; otherwise a portable 16-float array is used. Loads from fp16
// storage convert to fp32 on the way in.
#pragma once

#include "kernels/eigen_core.h"

#include <cstdint>
#include <cstring>

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)

#define KVSIM_VEC16_AVX512 1
#endif

namespace kvsim::kernels {

inline constexpr uint32_t kLanes = 16;

#if defined(KVSIM_VEC16_AVX512)

struct Vec16 {
  __m512 v;
};

inline Vec16 zero16() { return {_mm512_setzero_ps()}; }
inline Vec16 broadcast16(float x) { return {_mm512_set1_ps(x)}; }
inline Vec16 load16(const float* p) { return {_mm512_loadu_ps(p)}; }
inline Vec16 load16(const Eigen::half* p) {
  return {_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)))};
}
// Lanes [0, n) from p, the others 0. Precondition: n <= 16.
inline Vec16 load16_partial(const float* p, uint32_t n) {
  const __mmask16 mask = static_cast<__mmask16>((1u << n) - 1u);
  return {_mm512_maskz_loadu_ps(mask, p)};
}
inline Vec16 load16_partial(const Eigen::half* p, uint32_t n) {
  const __mmask16 mask = static_cast<__mmask16>((1u << n) - 1u);
  return {_mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, p))};
}
inline void store16(float* p, Vec16 a) { _mm512_storeu_ps(p, a.v); }
inline void store16_partial(float* p, Vec16 a, uint32_t n) {
  _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1u), a.v);
}
// a * b + c, fused.
inline Vec16 fma16(Vec16 a, Vec16 b, Vec16 c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }
inline Vec16 mul16(Vec16 a, Vec16 b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline Vec16 add16(Vec16 a, Vec16 b) { return {_mm512_add_ps(a.v, b.v)}; }
// Sum of the lanes (a fixed tree: the same inputs give the same sum).
inline float reduce16(Vec16 a) { return _mm512_reduce_add_ps(a.v); }

#else

struct Vec16 {
  float v[kLanes];
};

inline Vec16 zero16() { return Vec16{}; }
inline Vec16 broadcast16(float x) {
  Vec16 r;
  for (float& lane : r.v) lane = x;
  return r;
}
template <typename T>
inline Vec16 load16_partial(const T* p, uint32_t n) {
  Vec16 r{};
  for (uint32_t i = 0; i < n; ++i) r.v[i] = static_cast<float>(p[i]);
  return r;
}
inline Vec16 load16(const float* p) {
  Vec16 r;
  std::memcpy(r.v, p, sizeof(r.v));
  return r;
}
inline Vec16 load16(const Eigen::half* p) { return load16_partial(p, kLanes); }
inline void store16(float* p, Vec16 a) { std::memcpy(p, a.v, sizeof(a.v)); }
inline void store16_partial(float* p, Vec16 a, uint32_t n) {
  std::memcpy(p, a.v, n * sizeof(float));
}
inline Vec16 fma16(Vec16 a, Vec16 b, Vec16 c) {
  for (uint32_t i = 0; i < kLanes; ++i) c.v[i] = a.v[i] * b.v[i] + c.v[i];
  return c;
}
inline Vec16 mul16(Vec16 a, Vec16 b) {
  for (uint32_t i = 0; i < kLanes; ++i) a.v[i] *= b.v[i];
  return a;
}
inline Vec16 add16(Vec16 a, Vec16 b) {
  for (uint32_t i = 0; i < kLanes; ++i) a.v[i] += b.v[i];
  return a;
}
inline float reduce16(Vec16 a) {
  for (uint32_t width = kLanes / 2; width > 0; width /= 2) {
    for (uint32_t i = 0; i < width; ++i) a.v[i] += a.v[i + width];
  }
  return a.v[0];
}

#endif

// q . k over n elements, accumulated lane-wise (element d in lane d % 16) then reduced.
template <typename T>
inline float dot16(const float* q, const T* k, uint32_t n) {
  Vec16 acc = zero16();
  uint32_t d = 0;
  for (; d + kLanes <= n; d += kLanes) acc = fma16(load16(q + d), load16(k + d), acc);
  if (d < n) acc = fma16(load16_partial(q + d, n - d), load16_partial(k + d, n - d), acc);
  return reduce16(acc);
}

// y[d] += a * x[d] for d < n (one fused multiply-add per element).
template <typename T>
inline void axpy16(float a, const T* x, float* y, uint32_t n) {
  const Vec16 scale = broadcast16(a);
  uint32_t d = 0;
  for (; d + kLanes <= n; d += kLanes) store16(y + d, fma16(scale, load16(x + d), load16(y + d)));
  if (d < n) {
    store16_partial(y + d, fma16(scale, load16_partial(x + d, n - d),
                                 load16_partial(y + d, n - d)), n - d);
  }
}

}  // namespace kvsim::kernels
