#include "simulator/workload/length_distribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/base/enum_names.h"
#include "simulator/workload/trace_source.h"

namespace kvsim::sim {
namespace {

constexpr EnumNames<LengthKind, 4> kKindNames{{{
    {LengthKind::kFixed, "fixed"},
    {LengthKind::kUniform, "uniform"},
    {LengthKind::kLognormal, "lognormal"},
    {LengthKind::kEmpirical, "empirical"},
}}};

}  // namespace

std::string_view length_kind_name(LengthKind kind) { return kKindNames.name(kind); }

StatusOr<LengthKind> parse_length_kind(std::string_view name) {
  return kKindNames.parse(name, "length distribution");
}

StatusOr<std::shared_ptr<const EmpiricalLengths>> EmpiricalLengths::load(const std::string& path,
                                                                         TraceFormat format,
                                                                         uint64_t seed) {
  TraceSourceOptions options;
  options.skip_bad_rows = false;
  KVSIM_ASSIGN_OR_RETURN(auto source, open_trace_source(path, format, options));
  auto table = std::make_shared<EmpiricalLengths>();
  Rng rng(seed, /*stream=*/0x5EED);
  RequestSpec request;
  uint64_t seen = 0;
  for (;;) {
    KVSIM_ASSIGN_OR_RETURN(const bool more, source->next(&request));
    if (!more) break;
    const std::pair<uint32_t, uint32_t> row{request.prompt_tokens, request.output_tokens};
    // Reservoir sampling (Algorithm R): every row ends up kept with equal probability.
    if (table->rows_.size() < kMaxEmpiricalSamples) {
      table->rows_.push_back(row);
    } else {
      const uint64_t slot = rng.uniform_int(0, seen);
      if (slot < kMaxEmpiricalSamples) table->rows_[slot] = row;
    }
    ++seen;
  }
  if (table->rows_.empty()) {
    return Status::invalid_argument(path + ": no requests to draw lengths from");
  }
  return std::shared_ptr<const EmpiricalLengths>(std::move(table));
}

LengthSampler::LengthSampler(const LengthConfig& config,
                             std::shared_ptr<const EmpiricalLengths> table, int column)
    : config_(config), table_(std::move(table)), column_(column) {
  if (config_.kind == LengthKind::kLognormal) {
    mu_ = std::log(config_.mean) - 0.5 * config_.sigma * config_.sigma;
  }
  KVSIM_CHECK(config_.kind != LengthKind::kEmpirical || table_ != nullptr,
              "an empirical length distribution needs its table");
}

uint32_t LengthSampler::at_row(size_t row) const {
  const auto& pair = table_->rows()[row];
  return column_ == 0 ? pair.first : pair.second;
}

uint32_t LengthSampler::draw(Rng* rng) const {
  switch (config_.kind) {
    case LengthKind::kFixed:
      return config_.value;
    case LengthKind::kUniform:
      return static_cast<uint32_t>(rng->uniform_int(config_.min, config_.max));
    case LengthKind::kLognormal: {
      const double x = std::round(rng->lognormal(mu_, config_.sigma));
      return static_cast<uint32_t>(
          std::clamp(x, static_cast<double>(config_.min), static_cast<double>(config_.max)));
    }
    case LengthKind::kEmpirical:
      return at_row(rng->uniform_int(0, table_->rows().size() - 1));
  }
  return config_.value;
}

Status validate_length_config(const LengthConfig& config, const std::string& what) {
  if (config.kind == LengthKind::kFixed && config.value == 0) {
    return Status::invalid_argument(what + ": a fixed length must be >= 1");
  }
  if ((config.kind == LengthKind::kUniform || config.kind == LengthKind::kLognormal) &&
      (config.min == 0 || config.min > config.max)) {
    return Status::invalid_argument(
        fmt::format("{}: needs 1 <= min <= max, got min {}, max {}", what, config.min, config.max));
  }
  if (config.kind == LengthKind::kLognormal && !(config.mean >= 1 && config.sigma >= 0)) {
    return Status::invalid_argument(what + ": lognormal needs mean >= 1 and sigma >= 0");
  }
  if (config.kind == LengthKind::kEmpirical && config.trace.empty()) {
    return Status::invalid_argument(what + ": an empirical distribution needs 'trace'");
  }
  return Status::ok();
}

}  // namespace kvsim::sim
