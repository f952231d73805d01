#include "simulator/workload/synthetic_workload.h"

#include <cmath>

#include "core/base/enum_names.h"
#include "core/base/units.h"

namespace kvsim::sim {
namespace {

constexpr EnumNames<ArrivalProcess, 3> kProcessNames{{{
    {ArrivalProcess::kPoisson, "poisson"},
    {ArrivalProcess::kGamma, "gamma"},
    {ArrivalProcess::kConstant, "constant"},
}}};

// Simulated time stays far from int64 overflow: 100 years in ns.
constexpr double kMaxArrivalNs = 3.15576e18;

// Stream numbers of the workload's random choices (simulator/workload/random.h).
enum Stream : uint64_t { kArrivals = 1, kPrompt = 2, kOutput = 3, kPrefix = 4 };

}  // namespace

std::string_view arrival_process_name(ArrivalProcess process) {
  return kProcessNames.name(process);
}

StatusOr<ArrivalProcess> parse_arrival_process(std::string_view name) {
  return kProcessNames.parse(name, "arrival process");
}

Status validate_synthetic_config(const SyntheticConfig& config) {
  if (config.num_requests == 0) {
    return Status::invalid_argument("workload.synthetic.num_requests must be >= 1");
  }
  if (!(config.rate_per_s > 0) || !std::isfinite(config.rate_per_s)) {
    return Status::invalid_argument("workload.synthetic.rate must be > 0 requests per second");
  }
  if (config.arrival == ArrivalProcess::kGamma && !(config.cv > 0)) {
    return Status::invalid_argument("workload.synthetic.cv must be > 0 for gamma arrivals");
  }
  const SharedPrefixConfig& prefix = config.shared_prefix;
  if (prefix.probability < 0 || prefix.probability > 1) {
    return Status::invalid_argument(
        "workload.synthetic.shared_prefix.probability must be in [0, 1]");
  }
  if (prefix.probability > 0 && (prefix.groups == 0 || prefix.tokens == 0)) {
    return Status::invalid_argument(
        "workload.synthetic.shared_prefix needs groups >= 1 and tokens >= 1");
  }
  KVSIM_RETURN_IF_ERROR(
      validate_length_config(config.prompt_tokens, "workload.synthetic.prompt_tokens"));
  return validate_length_config(config.output_tokens, "workload.synthetic.output_tokens");
}

StatusOr<std::unique_ptr<SyntheticSource>> SyntheticSource::create(const SyntheticConfig& config,
                                                                   uint64_t seed,
                                                                   double time_scale) {
  KVSIM_RETURN_IF_ERROR(validate_synthetic_config(config));
  if (!(time_scale > 0)) return Status::invalid_argument("workload.time_scale must be > 0");
  std::shared_ptr<const EmpiricalLengths> prompt_table, output_table;
  const LengthConfig& p = config.prompt_tokens;
  const LengthConfig& o = config.output_tokens;
  if (p.kind == LengthKind::kEmpirical) {
    KVSIM_ASSIGN_OR_RETURN(prompt_table, EmpiricalLengths::load(p.trace, p.trace_format, seed));
  }
  const bool joint = p.kind == LengthKind::kEmpirical && o.kind == LengthKind::kEmpirical &&
                     p.trace == o.trace && p.trace_format == o.trace_format;
  if (joint) {
    output_table = prompt_table;
  } else if (o.kind == LengthKind::kEmpirical) {
    KVSIM_ASSIGN_OR_RETURN(output_table, EmpiricalLengths::load(o.trace, o.trace_format, seed));
  }
  return std::unique_ptr<SyntheticSource>(
      new SyntheticSource(config, seed, time_scale, LengthSampler(p, prompt_table, 0),
                          LengthSampler(o, output_table, 1), joint));
}

SyntheticSource::SyntheticSource(const SyntheticConfig& config, uint64_t seed, double time_scale,
                                 LengthSampler prompt, LengthSampler output, bool joint)
    : config_(config),
      time_scale_(time_scale),
      prompt_(std::move(prompt)),
      output_(std::move(output)),
      joint_(joint),
      arrival_rng_(seed, kArrivals),
      prompt_rng_(seed, kPrompt),
      output_rng_(seed, kOutput),
      prefix_rng_(seed, kPrefix) {}

double SyntheticSource::next_gap_ns_double() {
  const double mean_s = 1.0 / config_.rate_per_s;
  double gap_s = mean_s;
  if (config_.arrival == ArrivalProcess::kPoisson) {
    gap_s = arrival_rng_.exponential(mean_s);
  } else if (config_.arrival == ArrivalProcess::kGamma) {
    const double shape = 1.0 / (config_.cv * config_.cv);
    gap_s = arrival_rng_.gamma(shape, mean_s / shape);
  }
  return std::round(gap_s * time_scale_ * kNsPerS);
}

StatusOr<bool> SyntheticSource::next(RequestSpec* out) {
  if (produced_ >= config_.num_requests) return false;
  if (produced_ > 0) {
    const double gap_ns = next_gap_ns_double();
    if (static_cast<double>(now_ns_) + gap_ns > kMaxArrivalNs) {
      return Status::invalid_argument(
          "synthetic arrivals run past a century of simulated time; raise workload rate or "
          "lower num_requests / time_scale");
    }
    now_ns_ += static_cast<int64_t>(gap_ns);  // exact: a whole number below 2^62
  }
  out->id = produced_++;
  out->arrival_ns = now_ns_;
  if (joint_) {
    const size_t row = prompt_rng_.uniform_int(0, prompt_.table_rows() - 1);
    out->prompt_tokens = prompt_.at_row(row);
    out->output_tokens = output_.at_row(row);
  } else {
    out->prompt_tokens = prompt_.draw(&prompt_rng_);
    out->output_tokens = output_.draw(&output_rng_);
  }
  out->hash_ids.clear();
  out->hash_block_tokens = 0;
  out->prefix_group.reset();
  out->prefix_tokens = 0;
  const SharedPrefixConfig& prefix = config_.shared_prefix;
  if (prefix.probability > 0 && prefix_rng_.uniform01() < prefix.probability) {
    out->prefix_group = static_cast<uint64_t>(prefix_rng_.uniform_int(0, prefix.groups - 1));
    out->prefix_tokens = std::min(prefix.tokens, out->prompt_tokens);
  }
  return true;
}

double SyntheticSource::fraction_consumed() const {
  return static_cast<double>(produced_) / static_cast<double>(config_.num_requests);
}

}  // namespace kvsim::sim
