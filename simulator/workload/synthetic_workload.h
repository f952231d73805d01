// SyntheticSource: a generated workload, request by request (never materialised, so a
// million requests cost nothing until they arrive).
//
// Arrivals at `rate` requests per second:
//   poisson    gaps ~ Exponential(mean 1 / rate)
//   gamma      gaps ~ Gamma(shape k = 1 / cv^2, scale 1 / (rate k)): mean 1 / rate, and the
//              coefficient of variation cv of the gaps is the burstiness (cv = 1 is Poisson,
//              cv > 1 bursty, cv < 1 smoother)
//   constant   gaps = 1 / rate exactly
//   burst      every request at t = 0 (a benchmark without a request rate: `vllm bench serve`
//              with --request-rate inf; with workload.max_concurrency, a closed loop)
// The first request arrives at t = 0; each gap is rounded to whole nanoseconds before it is
// added, so arrival times are exact integers. With `stages` (a rate for a duration, then the
// next, as inference-perf's load stages and staged benchmarks send), each stage's first
// request arrives at its start and the gaps follow its rate; the workload ends with the last
// stage (or at num_requests, if given).
//
// Prompt and output lengths are drawn independently (simulator/workload/length_distribution.h).
// With probability `shared_prefix.probability` a request belongs to one of
// `shared_prefix.groups` groups, chosen uniformly, and its first min(shared_prefix.tokens,
// prompt) tokens are the group's (a system prompt). With `prompt_set: N` the workload is a
// benchmark's fixed prompt set: N prompts (lengths and group) drawn once, then sent in turn
// (`prompt_order: cycle`) or picked uniformly (`random`); a prompt sent again has the same
// content (RequestSpec::content_id), so it hits the prefix cache as a repeated prompt does. A
// prompt set with a shared prefix is a two-level prefix: the group's system prompt, then a
// question that recurs (inference-perf's shared_prefix data: groups x prompts per group).
// Every random choice has its own seeded stream (simulator/workload/random.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/engine/request.h"
#include "simulator/workload/length_distribution.h"
#include "simulator/workload/random.h"

namespace kvsim::sim {

enum class ArrivalProcess : uint8_t { kPoisson, kGamma, kConstant, kBurst };

std::string_view arrival_process_name(ArrivalProcess process);
StatusOr<ArrivalProcess> parse_arrival_process(std::string_view name);

enum class PromptOrder : uint8_t { kCycle, kRandom };

std::string_view prompt_order_name(PromptOrder order);
StatusOr<PromptOrder> parse_prompt_order(std::string_view name);

struct ArrivalStage {
  double rate_per_s = 0;  // mean arrival rate in the stage
  double duration_s = 0;  // the stage's length
};

struct SharedPrefixConfig {
  uint32_t groups = 0;       // number of distinct shared prefixes; 0 = none
  uint32_t tokens = 0;       // tokens of each shared prefix
  double probability = 0.0;  // share of requests that start with a group's prefix
};

struct SyntheticConfig {
  uint64_t num_requests = 1000;  // requests to generate (with stages: a cap)
  ArrivalProcess arrival = ArrivalProcess::kPoisson;
  double rate_per_s = 1.0;           // mean arrival rate, requests per second (not stages)
  std::vector<ArrivalStage> stages;  // non-empty: staged rates instead of rate_per_s
  double cv = 1.0;                   // gamma: coefficient of variation of gaps
  LengthConfig prompt_tokens;        // prompt length distribution
  LengthConfig output_tokens;        // output length distribution
  SharedPrefixConfig shared_prefix;
  uint64_t prompt_set = 0;  // > 0: this many prompts drawn once and repeated
  PromptOrder prompt_order = PromptOrder::kCycle;
};

// Whether the arrivals follow one rate (rate_per_s): not a burst, not stages.
bool has_single_rate(const SyntheticConfig& config);

// The stages' end times in ns after time_scale (cumulative, one per stage).
std::vector<int64_t> stage_ends_ns(const std::vector<ArrivalStage>& stages, double time_scale);

Status validate_synthetic_config(const SyntheticConfig& config);

class SyntheticSource final : public RequestSource {
 public:
  // `time_scale` multiplies every gap (as for traces). Loads empirical tables (data: paths
  // must be resolved already).
  static StatusOr<std::unique_ptr<SyntheticSource>> create(const SyntheticConfig& config,
                                                           uint64_t seed, double time_scale);

  StatusOr<bool> next(RequestSpec* out) override;
  double fraction_consumed() const override;
  // The request count when it is known before the run: not with stages (their arrivals end
  // with time).
  std::optional<uint64_t> expected_count() const override;

 private:
  SyntheticSource(const SyntheticConfig& config, uint64_t seed, double time_scale,
                  LengthSampler prompt, LengthSampler output, bool joint);
  // One prompt of the workload (or of the prompt set).
  struct Prompt {
    uint32_t prompt_tokens = 0;
    uint32_t output_tokens = 0;
    std::optional<uint64_t> group;
  };

  double next_gap_ns_double();  // a gap rounded to whole ns, at the current stage's rate
  // The next arrival time; false past the last stage.
  StatusOr<bool> next_arrival_ns(int64_t* out);
  Prompt draw_prompt();

  SyntheticConfig config_;
  double time_scale_;
  LengthSampler prompt_;
  LengthSampler output_;
  bool joint_;  // prompt and output drawn from the same empirical row
  Rng arrival_rng_, prompt_rng_, output_rng_, prefix_rng_, pick_rng_;
  std::vector<Prompt> prompt_set_;  // config_.prompt_set prompts, drawn at creation
  std::vector<int64_t> stage_ends_ns_;
  size_t stage_ = 0;  // the stage of now_ns_
  uint64_t produced_ = 0;
  int64_t now_ns_ = 0;
};

}  // namespace kvsim::sim
