// Vec16: sixteen fp32 lanes, the one vector type the attention kernels compute with.
//
// Every dot product and every weighted sum in the kernels is written with these operations
// and the same lane assignment (element d of a run goes to lane d % 16, tails are zero-filled),
// so kernels that read the same values in the same order give bit-identical results whatever
// the storage layout (contiguous, paged ND, NZ). With AVX-512 (F, BW, VL) the operations map
// to single instructions; otherwise a portable 16-float array is used. Loads from fp16
// storage convert to fp32 on the way in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/base/prefetch.h"
#include "kernels/eigen_core.h"

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
inline Vec16 max16(Vec16 a, Vec16 b) { return {_mm512_max_ps(a.v, b.v)}; }
inline float reduce_max16(Vec16 a) { return _mm512_reduce_max_ps(a.v); }
// Sum of the lanes by halving (lane i + lane i+8, then +4, +2, +1): the same inputs give the
// same sum, and reduce16x16 below follows the same tree.
inline float reduce16(Vec16 a) { return _mm512_reduce_add_ps(a.v); }

// out[t] = reduce16(in[t]) for 16 vectors at once, bit for bit: each of the four halving steps
// of reduce16 is applied to two vectors per instruction (shuffles gather the halves), and a
// final permutation puts the sums in order.
inline void reduce16x16(const Vec16 in[16], float out[16]) {
  __m512 z[8], w[4], v[2];
  for (int k = 0; k < 8; ++k) {  // lanes i + i+8: z[k] = [in[k] | in[k+8]]
    const __m512 lo = _mm512_shuffle_f32x4(in[k].v, in[k + 8].v, 0x44);  // 256-bit low halves
    const __m512 hi = _mm512_shuffle_f32x4(in[k].v, in[k + 8].v, 0xEE);  // 256-bit high halves
    z[k] = _mm512_add_ps(lo, hi);
  }
  for (int m = 0; m < 4; ++m) {  // + lanes 4 apart: 128-bit lanes of z[m], z[m+4]
    const __m512 lo = _mm512_shuffle_f32x4(z[m], z[m + 4], 0x88);  // lanes 0, 2 of each
    const __m512 hi = _mm512_shuffle_f32x4(z[m], z[m + 4], 0xDD);  // lanes 1, 3 of each
    w[m] = _mm512_add_ps(lo, hi);
  }
  for (int n = 0; n < 2; ++n) {  // + elements 2 apart within each 128-bit lane
    const __m512 lo = _mm512_shuffle_ps(w[n], w[n + 2], 0x44);  // elements 0, 1
    const __m512 hi = _mm512_shuffle_ps(w[n], w[n + 2], 0xEE);  // elements 2, 3
    v[n] = _mm512_add_ps(lo, hi);
  }
  const __m512 lo = _mm512_shuffle_ps(v[0], v[1], 0x88);  // elements 0, 2
  const __m512 hi = _mm512_shuffle_ps(v[0], v[1], 0xDD);  // elements 1, 3
  const __m512 sums = _mm512_add_ps(lo, hi);              // lane 4j+e holds in[order(j, e)]
  const __m512i order = _mm512_setr_epi32(0, 2, 1, 3, 8, 10, 9, 11, 4, 6, 5, 7, 12, 14, 13, 15);
  _mm512_storeu_ps(out, _mm512_permutexvar_ps(order, sums));
}

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
inline Vec16 max16(Vec16 a, Vec16 b) {
  for (uint32_t i = 0; i < kLanes; ++i) a.v[i] = a.v[i] > b.v[i] ? a.v[i] : b.v[i];
  return a;
}
inline float reduce_max16(Vec16 a) {
  float m = a.v[0];
  for (float x : a.v) m = x > m ? x : m;
  return m;
}
inline float reduce16(Vec16 a) {
  for (uint32_t width = kLanes / 2; width > 0; width /= 2) {
    for (uint32_t i = 0; i < width; ++i) a.v[i] += a.v[i + width];
  }
  return a.v[0];
}
inline void reduce16x16(const Vec16 in[16], float out[16]) {
  for (int t = 0; t < 16; ++t) out[t] = reduce16(in[t]);
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
    store16_partial(y + d, fma16(scale, load16_partial(x + d, n - d), load16_partial(y + d, n - d)),
                    n - d);
  }
}

}  // namespace kvsim::kernels
