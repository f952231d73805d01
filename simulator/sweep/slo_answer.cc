#include "simulator/sweep/slo_answer.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/base/text_format.h"

namespace kvsim::sim {
namespace {

double metric_or(const FlatMetrics& metrics, const char* key, double fallback) {
  const auto it = metrics.find(key);
  return it == metrics.end() ? fallback : it->second;
}

std::string cost_text(const FlatMetrics& metrics) {
  const double total = metric_or(metrics, "slo.cost_per_million_tokens_usd", -1);
  const double output = metric_or(metrics, "slo.cost_per_million_output_tokens_usd", -1);
  if (total < 0 || output < 0) return "no price";
  return fmt::format("${} per M tokens (${} per M output)", format_fixed(total, 3),
                     format_fixed(output, 3));
}

std::string answer_of(const PointRecord& record) {
  if (!record.ok) return "failed: " + record.error;
  const std::string bound = "bound by " + record.binding;
  if (metric_or(record.metrics, "slo.found", 0) != 1) return "no rate met the SLO  " + bound;
  return fmt::format("max {} req/s  {}  {}",
                     format_fixed(metric_or(record.metrics, "slo.max_rate_per_s", 0), 2),
                     cost_text(record.metrics), bound);
}

}  // namespace

std::string slo_answer_text(const std::vector<PointRecord>& records) {
  size_t width = 0;
  for (const PointRecord& record : records) width = std::max(width, record.name.size());
  std::string text;
  for (const PointRecord& record : records) {
    text += fmt::format("  {:<{}}  {}\n", record.name, width, answer_of(record));
  }
  return text;
}

}  // namespace kvsim::sim
