#include "simulator/workload/synthetic_workload.h"

#include <cmath>

#include "core/base/enum_names.h"
#include "core/base/units.h"

namespace kvsim::sim {
namespace {

constexpr EnumNames<ArrivalProcess, 4> kProcessNames{{{
    {ArrivalProcess::kPoisson, "poisson"},
    {ArrivalProcess::kGamma, "gamma"},
    {ArrivalProcess::kConstant, "constant"},
    {ArrivalProcess::kBurst, "burst"},
}}};

constexpr EnumNames<PromptOrder, 2> kOrderNames{{{
    {PromptOrder::kCycle, "cycle"},
    {PromptOrder::kRandom, "random"},
}}};

// A prompt set is held in memory: 16 M prompts (24 bytes each, 384 MiB) at most.
constexpr uint64_t kMaxPromptSet = uint64_t{1} << 24;

// Simulated time stays far from int64 overflow: 100 years in ns.
constexpr double kMaxArrivalNs = 3.15576e18;

// Stream numbers of the workload's random choices (simulator/workload/random.h).
enum Stream : uint64_t { kArrivals = 1, kPrompt = 2, kOutput = 3, kPrefix = 4, kPick = 5 };

}  // namespace

std::string_view arrival_process_name(ArrivalProcess process) {
  return kProcessNames.name(process);
}

StatusOr<ArrivalProcess> parse_arrival_process(std::string_view name) {
  return kProcessNames.parse(name, "arrival process");
}

std::string_view prompt_order_name(PromptOrder order) { return kOrderNames.name(order); }

StatusOr<PromptOrder> parse_prompt_order(std::string_view name) {
  return kOrderNames.parse(name, "prompt order");
}

bool has_single_rate(const SyntheticConfig& config) {
  return config.stages.empty() && config.arrival != ArrivalProcess::kBurst;
}

std::vector<int64_t> stage_ends_ns(const std::vector<ArrivalStage>& stages, double time_scale) {
  std::vector<int64_t> ends;
  double end_s = 0;
  for (const ArrivalStage& stage : stages) {
    end_s += stage.duration_s;
    ends.push_back(std::llround(end_s * time_scale * kNsPerS));
  }
  return ends;
}

namespace {

Status validate_stages(const SyntheticConfig& config) {
  for (size_t i = 0; i < config.stages.size(); ++i) {
    const ArrivalStage& stage = config.stages[i];
    const std::string where = "workload.synthetic.stages[" + std::to_string(i) + "]";
    if (!(stage.rate_per_s > 0) || !std::isfinite(stage.rate_per_s)) {
      return Status::invalid_argument(where + ".rate must be > 0 requests per second");
    }
    if (!(stage.duration_s > 0) || !std::isfinite(stage.duration_s)) {
      return Status::invalid_argument(where + ".duration_s must be > 0 seconds");
    }
  }
  if (!config.stages.empty() && config.arrival == ArrivalProcess::kBurst) {
    return Status::invalid_argument(
        "workload.synthetic: arrival burst sends everything at t = 0 and has no stages");
  }
  return Status::ok();
}

}  // namespace

Status validate_synthetic_config(const SyntheticConfig& config) {
  if (config.num_requests == 0) {
    return Status::invalid_argument("workload.synthetic.num_requests must be >= 1");
  }
  KVSIM_RETURN_IF_ERROR(validate_stages(config));
  if (has_single_rate(config) && (!(config.rate_per_s > 0) || !std::isfinite(config.rate_per_s))) {
    return Status::invalid_argument("workload.synthetic.rate must be > 0 requests per second");
  }
  if (config.prompt_set > kMaxPromptSet) {
    return Status::invalid_argument(
        "workload.synthetic.prompt_set must be <= " + std::to_string(kMaxPromptSet) + " prompts");
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
      prefix_rng_(seed, kPrefix),
      pick_rng_(seed, kPick),
      stage_ends_ns_(stage_ends_ns(config.stages, time_scale)) {
  prompt_set_.reserve(config.prompt_set);
  for (uint64_t i = 0; i < config.prompt_set; ++i) prompt_set_.push_back(draw_prompt());
}

double SyntheticSource::next_gap_ns_double() {
  const double rate =
      config_.stages.empty() ? config_.rate_per_s : config_.stages[stage_].rate_per_s;
  const double mean_s = 1.0 / rate;
  double gap_s = mean_s;
  if (config_.arrival == ArrivalProcess::kPoisson) {
    gap_s = arrival_rng_.exponential(mean_s);
  } else if (config_.arrival == ArrivalProcess::kGamma) {
    const double shape = 1.0 / (config_.cv * config_.cv);
    gap_s = arrival_rng_.gamma(shape, mean_s / shape);
  }
  return std::round(gap_s * time_scale_ * kNsPerS);
}

StatusOr<bool> SyntheticSource::next_arrival_ns(int64_t* out) {
  if (produced_ == 0 || config_.arrival == ArrivalProcess::kBurst) {
    *out = now_ns_;
    return true;
  }
  const double gap_ns = next_gap_ns_double();
  double at_ns = static_cast<double>(now_ns_) + gap_ns;
  if (!stage_ends_ns_.empty() && at_ns >= static_cast<double>(stage_ends_ns_[stage_])) {
    // Past this stage: the next one's first request arrives at its start.
    if (++stage_ == stage_ends_ns_.size()) return false;
    at_ns = static_cast<double>(stage_ends_ns_[stage_ - 1]);
  }
  if (at_ns > kMaxArrivalNs) {
    return Status::invalid_argument(
        "synthetic arrivals run past a century of simulated time; raise workload rate or "
        "lower num_requests / time_scale");
  }
  *out = static_cast<int64_t>(at_ns);  // exact: a whole number below 2^62
  return true;
}

SyntheticSource::Prompt SyntheticSource::draw_prompt() {
  Prompt p;
  if (joint_) {
    const size_t row = prompt_rng_.uniform_int(0, prompt_.table_rows() - 1);
    p.prompt_tokens = prompt_.at_row(row);
    p.output_tokens = output_.at_row(row);
  } else {
    p.prompt_tokens = prompt_.draw(&prompt_rng_);
    p.output_tokens = output_.draw(&output_rng_);
  }
  const SharedPrefixConfig& prefix = config_.shared_prefix;
  if (prefix.probability > 0 && prefix_rng_.uniform01() < prefix.probability) {
    p.group = static_cast<uint64_t>(prefix_rng_.uniform_int(0, prefix.groups - 1));
  }
  return p;
}

StatusOr<bool> SyntheticSource::next(RequestSpec* out) {
  if (produced_ >= config_.num_requests) return false;
  int64_t arrival_ns = 0;
  KVSIM_ASSIGN_OR_RETURN(const bool more, next_arrival_ns(&arrival_ns));
  if (!more) return false;
  now_ns_ = arrival_ns;
  out->id = produced_++;
  out->arrival_ns = now_ns_;
  out->content_id.reset();
  Prompt prompt;
  if (prompt_set_.empty()) {
    prompt = draw_prompt();
  } else {
    const uint64_t n = prompt_set_.size();
    const uint64_t index = config_.prompt_order == PromptOrder::kCycle
                               ? out->id % n
                               : static_cast<uint64_t>(pick_rng_.uniform_int(0, n - 1));
    prompt = prompt_set_[index];
    out->content_id = index;
  }
  out->prompt_tokens = prompt.prompt_tokens;
  out->output_tokens = prompt.output_tokens;
  out->hash_ids.clear();
  out->hash_block_tokens = 0;
  out->prefix_group = prompt.group;
  out->prefix_tokens =
      prompt.group ? std::min(config_.shared_prefix.tokens, prompt.prompt_tokens) : 0;
  return true;
}

std::optional<uint64_t> SyntheticSource::expected_count() const {
  if (!config_.stages.empty()) return std::nullopt;
  return config_.num_requests;
}

double SyntheticSource::fraction_consumed() const {
  if (!stage_ends_ns_.empty()) {
    return std::min(1.0, static_cast<double>(now_ns_) / static_cast<double>(stage_ends_ns_.back()));
  }
  return static_cast<double>(produced_) / static_cast<double>(config_.num_requests);
}

}  // namespace kvsim::sim
