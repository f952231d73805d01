// SyntheticSource: a generated workload, request by request (never materialised, so a
// million requests cost nothing until they arrive).
//
// Arrivals at `rate` requests per second:
//   poisson    gaps ~ Exponential(mean 1 / rate)
//   gamma      gaps ~ Gamma(shape k = 1 / cv^2, scale 1 / (rate k)): mean 1 / rate, and the
//              coefficient of variation cv of the gaps is the burstiness (cv = 1 is Poisson,
//              cv > 1 bursty, cv < 1 smoother)
//   constant   gaps = 1 / rate exactly
// The first request arrives at t = 0; each gap is rounded to whole nanoseconds before it is
// added, so arrival times are exact integers. Prompt and output lengths are drawn
// independently (simulator/workload/length_distribution.h). With probability
// `shared_prefix.probability` a request belongs to one of `shared_prefix.groups` groups, chosen
// uniformly, and its first min(shared_prefix.tokens, prompt) tokens are the group's (a system
// prompt). Every random choice has its own seeded stream (simulator/workload/random.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "simulator/engine/request.h"
#include "simulator/workload/length_distribution.h"
#include "simulator/workload/random.h"

namespace kvsim::sim {

enum class ArrivalProcess : uint8_t { kPoisson, kGamma, kConstant };

std::string_view arrival_process_name(ArrivalProcess process);
StatusOr<ArrivalProcess> parse_arrival_process(std::string_view name);

struct SharedPrefixConfig {
  uint32_t groups = 0;       // number of distinct shared prefixes; 0 = none
  uint32_t tokens = 0;       // tokens of each shared prefix
  double probability = 0.0;  // share of requests that start with a group's prefix
};

struct SyntheticConfig {
  uint64_t num_requests = 1000;  // requests to generate
  ArrivalProcess arrival = ArrivalProcess::kPoisson;
  double rate_per_s = 1.0;     // mean arrival rate, requests per second
  double cv = 1.0;             // gamma: coefficient of variation of gaps
  LengthConfig prompt_tokens;  // prompt length distribution
  LengthConfig output_tokens;  // output length distribution
  SharedPrefixConfig shared_prefix;
};

Status validate_synthetic_config(const SyntheticConfig& config);

class SyntheticSource final : public RequestSource {
 public:
  // `time_scale` multiplies every gap (as for traces). Loads empirical tables (data: paths
  // must be resolved already).
  static StatusOr<std::unique_ptr<SyntheticSource>> create(const SyntheticConfig& config,
                                                           uint64_t seed, double time_scale);

  StatusOr<bool> next(RequestSpec* out) override;
  double fraction_consumed() const override;
  std::optional<uint64_t> expected_count() const override { return config_.num_requests; }

 private:
  SyntheticSource(const SyntheticConfig& config, uint64_t seed, double time_scale,
                  LengthSampler prompt, LengthSampler output, bool joint);
  double next_gap_ns_double();  // a gap rounded to whole ns

  SyntheticConfig config_;
  double time_scale_;
  LengthSampler prompt_;
  LengthSampler output_;
  bool joint_;  // prompt and output drawn from the same empirical row
  Rng arrival_rng_, prompt_rng_, output_rng_, prefix_rng_;
  uint64_t produced_ = 0;
  int64_t now_ns_ = 0;
};

}  // namespace kvsim::sim
