#include "simulator/workload/random.h"

#include <cmath>

#include "core/base/check.h"

namespace kvsim::sim {
namespace {

uint64_t splitmix64(uint64_t* x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ull);
  for (uint64_t& word : state_) word = splitmix64(&x);
}

uint64_t Rng::next_u64() {
  // xoshiro256** (Blackman and Vigna, 2018).
  const uint64_t result = rotl(state_[1] * 5, 7) * 9;
  const uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

double Rng::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Rng::uniform01_open_low() { return 1.0 - uniform01(); }

uint64_t Rng::uniform_int(uint64_t lo, uint64_t hi) {
  KVSIM_CHECK(lo <= hi, "uniform_int: lo > hi");
  const uint64_t span = hi - lo;
  if (span == UINT64_MAX) return next_u64();
  const uint64_t range = span + 1;
  // Rejection of the top partial copy of [0, range) keeps every value equally likely.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % range;
  uint64_t x = next_u64();
  while (x >= limit) x = next_u64();
  return lo + x % range;
}

double Rng::exponential(double mean) { return -mean * std::log(uniform01_open_low()); }

double Rng::normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  double u = 0, v = 0, s = 0;
  do {
    u = 2.0 * uniform01() - 1.0;
    v = 2.0 * uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * factor;
  has_spare_normal_ = true;
  return u * factor;
}

double Rng::gamma(double shape, double scale) {
  KVSIM_CHECK(shape > 0 && scale > 0, "gamma: shape and scale must be positive");
  if (shape < 1.0) {
    // Gamma(k) = Gamma(k + 1) * U^(1/k).
    return gamma(shape + 1.0, scale) * std::pow(uniform01_open_low(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0, v = 0;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform01_open_low();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v * scale;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v * scale;
  }
}

double Rng::lognormal(double mu, double sigma) { return std::exp(mu + sigma * normal()); }

}  // namespace kvsim::sim
