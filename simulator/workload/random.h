// Rng: the simulator's seeded pseudo-random numbers and the few distributions workloads draw.
//
// The generator (xoshiro256**, seeded through splitmix64) and every distribution are written
// out here rather than taken from <random>, whose distributions differ between standard
// libraries: the same seed gives the same workload on every platform and compiler.
// Streams: Rng(seed, stream) gives independent sequences for the parts of one workload
// (arrivals, prompt lengths, ...), so changing how many numbers one part draws never shifts
// another part's numbers.
#pragma once

#include <array>
#include <cstdint>

namespace kvsim::sim {

class Rng {
 public:
  explicit Rng(uint64_t seed, uint64_t stream = 0);

  uint64_t next_u64();
  // Uniform in [0, 1) with 53 random bits.
  double uniform01();
  // Uniform in (0, 1]: safe for log().
  double uniform01_open_low();
  // Uniform integer in [lo, hi] (lo <= hi), without modulo bias.
  uint64_t uniform_int(uint64_t lo, uint64_t hi);
  // Exponential with the given mean (> 0).
  double exponential(double mean);
  // Standard normal (Marsaglia's polar method; keeps the second value of each pair).
  double normal();
  // Gamma with shape k > 0 and scale theta > 0 (Marsaglia-Tsang; k < 1 by boosting).
  double gamma(double shape, double scale);
  // exp(N(mu, sigma^2)).
  double lognormal(double mu, double sigma);

 private:
  std::array<uint64_t, 4> state_{};
  double spare_normal_ = 0;
  bool has_spare_normal_ = false;
};

}  // namespace kvsim::sim
