#include "simulator/engine/speculation.h"

#include <fmt/format.h>

#include <cmath>

#include "core/base/check.h"
#include "core/base/enum_names.h"

namespace kvsim::sim {
namespace {

constexpr EnumNames<SpeculativeMethod, 5> kMethodNames{{{
    {SpeculativeMethod::kEagle, "eagle"},
    {SpeculativeMethod::kEagle3, "eagle3"},
    {SpeculativeMethod::kMtp, "mtp"},
    {SpeculativeMethod::kNgram, "ngram"},
    {SpeculativeMethod::kDraftModel, "draft_model"},
}}};

}  // namespace

std::string_view speculative_method_name(SpeculativeMethod method) {
  return kMethodNames.name(method);
}

StatusOr<SpeculativeMethod> parse_speculative_method(std::string_view name) {
  return kMethodNames.parse(name, "speculative method");
}

StatusOr<std::vector<double>> acceptance_rates(const std::vector<double>& stated, uint32_t k) {
  if (stated.size() != 1 && stated.size() != k) {
    return Status::invalid_argument(
        fmt::format("speculative.acceptance: one rate or num_speculative_tokens ({}) rates, got {}",
                    k, stated.size()));
  }
  for (double rate : stated) {
    if (!(rate >= 0 && rate <= 1)) {
      return Status::invalid_argument(
          fmt::format("speculative.acceptance: a rate must be in [0, 1], got {}", rate));
    }
  }
  if (stated.size() == 1) {
    std::vector<double> rates(k);
    for (uint32_t i = 0; i < k; ++i) rates[i] = std::pow(stated[0], i + 1);
    return rates;
  }
  for (size_t i = 1; i < stated.size(); ++i) {
    if (stated[i] > stated[i - 1]) {
      return Status::invalid_argument(fmt::format(
          "speculative.acceptance: per-position rates cannot rise (position {} is {} after {}): "
          "draft i is accepted only when draft i - 1 is",
          i + 1, stated[i], stated[i - 1]));
    }
  }
  return stated;
}

int64_t draft_first_pass_ns(const CostModel& draft, const BatchShape& batch) {
  BatchShape first = batch;
  first.sampled_tokens = first.num_seqs;
  return draft.iteration_ns(first);
}

int64_t draft_ns(const CostModel& draft, const BatchShape& batch, const BatchShape& decodes,
                 uint32_t k) {
  const int64_t later = k > 1 ? int64_t{k - 1} * draft.iteration_ns(decodes) : 0;
  return draft_first_pass_ns(draft, batch) + later;
}

DraftAcceptance::DraftAcceptance(const SpeculativeConfig& config) : rng_(config.seed) {
  double before = 1;
  for (double rate : config.acceptance) {
    conditional_.push_back(before > 0 ? rate / before : 0);
    before = rate;
  }
}

uint32_t DraftAcceptance::accepted(uint32_t drafts, double own_rate) {
  KVSIM_CHECK(drafts <= conditional_.size(), "more drafts than acceptance rates");
  uint32_t accepted = 0;
  // A uniform double in [0, 1) from the top 53 bits: the same draws on every standard library.
  while (accepted < drafts && static_cast<double>(rng_() >> 11) * 0x1.0p-53 <
                                  (own_rate >= 0 ? own_rate : conditional_[accepted])) {
    ++accepted;
  }
  return accepted;
}

}  // namespace kvsim::sim
