// Token-length distributions of synthetic workloads (prompt and output lengths).
//
//   fixed       always `value`
//   uniform     an integer uniform in [min, max]
//   lognormal   exp(N(mu, sigma^2)) with mu = ln(mean) - sigma^2 / 2, so the mean is `mean`,
//               rounded and clamped to [min, max]
//   empirical   a row drawn uniformly from a trace file (any trace format); when the prompt and
//               the output lengths both come from the same file they are drawn from the same
//               row, so their correlation is kept
// A trace used for an empirical distribution is read once, streaming; at most
// kMaxEmpiricalSamples rows are kept (a seeded reservoir sample), so a 27-million-row file
// costs 8 MiB.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "simulator/workload/random.h"
#include "simulator/workload/trace_reader.h"

namespace kvsim::sim {

enum class LengthKind : uint8_t { kFixed, kUniform, kLognormal, kEmpirical };

std::string_view length_kind_name(LengthKind kind);
StatusOr<LengthKind> parse_length_kind(std::string_view name);

struct LengthConfig {
  LengthKind kind = LengthKind::kFixed;
  uint32_t value = 256;    // fixed: tokens
  uint32_t min = 1;        // uniform, lognormal: smallest length
  uint32_t max = 1 << 20;  // uniform, lognormal: largest length
  double mean = 256;       // lognormal: mean tokens
  double sigma = 1.0;      // lognormal: standard deviation of ln(length)
  std::string trace;       // empirical: trace file (data: paths resolved by the caller)
  TraceFormat trace_format = TraceFormat::kAuto;
};

inline constexpr size_t kMaxEmpiricalSamples = size_t{1} << 20;

// (prompt, output) pairs of a trace's rows; failed and malformed rows are left out.
class EmpiricalLengths {
 public:
  static StatusOr<std::shared_ptr<const EmpiricalLengths>> load(const std::string& path,
                                                                TraceFormat format, uint64_t seed);
  const std::vector<std::pair<uint32_t, uint32_t>>& rows() const { return rows_; }

 private:
  std::vector<std::pair<uint32_t, uint32_t>> rows_;
};

// Draws lengths from one LengthConfig.
class LengthSampler {
 public:
  // `table` must be given (non-null) for kEmpirical; `column` 0 = prompt, 1 = output.
  LengthSampler(const LengthConfig& config, std::shared_ptr<const EmpiricalLengths> table,
                int column);
  // Empirical draws use `row` (an index into the table) when given, so two samplers share a row.
  uint32_t draw(Rng* rng) const;
  uint32_t at_row(size_t row) const;
  size_t table_rows() const { return table_ ? table_->rows().size() : 0; }

 private:
  LengthConfig config_;
  std::shared_ptr<const EmpiricalLengths> table_;
  int column_;
  double mu_ = 0;
};

// Checks a config's ranges; `what` names it in messages ("workload.synthetic.prompt_tokens").
Status validate_length_config(const LengthConfig& config, const std::string& what);

}  // namespace kvsim::sim
