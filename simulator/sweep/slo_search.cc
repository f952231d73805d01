#include "simulator/sweep/slo_search.h"

#include <fmt/format.h>

#include <cmath>

#include "core/base/text_format.h"
#include "core/config/config_reader.h"

namespace kvsim::sim {
namespace {

constexpr double kMinLoad = 1e-6;
constexpr double kMaxLoad = 1e6;

// "ttft_p99_s" -> "ttft_s.p99": a limit key is <metric>_<stat>_s with stat mean|p50|p90|p99.
// Returns "" for any other key.
std::string limit_metric(std::string_view key) {
  constexpr std::string_view kSuffix = "_s";
  if (key.size() <= kSuffix.size() || !key.ends_with(kSuffix)) return "";
  const std::string_view stem = key.substr(0, key.size() - kSuffix.size());
  const size_t underscore = stem.rfind('_');
  if (underscore == std::string_view::npos || underscore == 0) return "";
  const std::string_view stat = stem.substr(underscore + 1);
  if (stat != "mean" && stat != "p50" && stat != "p90" && stat != "p99") return "";
  return fmt::format("{}_s.{}", stem.substr(0, underscore), stat);
}

struct Probe {
  bool meets = false;
  FlatMetrics metrics;
};

}  // namespace

StatusOr<SloSpec> slo_from_config(const ConfigNode& node) {
  SloSpec slo;
  ConfigReader r(node, "slo");
  r.optional("start_rate_per_s", &slo.start_rate_per_s, 1e-9, 1e9);
  r.optional("precision", &slo.precision, 1.0001, 2.0);
  if (node.is_map()) {
    for (const auto& [key, value] : node.entries()) {
      SloLimit limit{limit_metric(key), 0};
      if (limit.metric.empty()) continue;
      r.required(key, &limit.max, 0.0, 1e9);
      slo.limits.push_back(limit);
    }
  }
  KVSIM_RETURN_IF_ERROR(r.finish());
  if (slo.limits.empty()) {
    return error_at(node.mark(), "slo needs at least one limit such as ttft_p99_s: 2.0");
  }
  return slo;
}

bool meets_slo(const FlatMetrics& metrics, const SloSpec& slo, std::string* violated) {
  for (const SloLimit& limit : slo.limits) {
    const auto it = metrics.find(limit.metric);
    if (it == metrics.end() || !std::isfinite(it->second)) {
      *violated = limit.metric + " is unknown";
      return false;
    }
    if (it->second > limit.max) {
      *violated = fmt::format("{} = {} > {}", limit.metric, format_number(it->second),
                              format_number(limit.max));
      return false;
    }
  }
  return true;
}

StatusOr<SloSearchResult> search_max_load(const LoadRunner& run, const SloSpec& slo) {
  SloSearchResult result;
  const auto probe = [&](double load) -> StatusOr<Probe> {
    ++result.evaluations;
    KVSIM_ASSIGN_OR_RETURN(FlatMetrics metrics, run(load));
    std::string violated;
    return Probe{meets_slo(metrics, slo, &violated), std::move(metrics)};
  };
  double lo = 0;
  double hi = 0;
  double load = 1.0;
  // Bracket: double while the SLO holds, halve while it does not.
  KVSIM_ASSIGN_OR_RETURN(Probe first, probe(load));
  if (first.meets) {
    lo = load;
    result.metrics = std::move(first.metrics);
    while (hi == 0 && lo < kMaxLoad && result.evaluations < slo.max_evaluations) {
      KVSIM_ASSIGN_OR_RETURN(Probe next, probe(lo * 2));
      if (next.meets) {
        lo *= 2;
        result.metrics = std::move(next.metrics);
      } else {
        hi = lo * 2;
      }
    }
  } else {
    hi = load;
    while (lo == 0 && hi > kMinLoad && result.evaluations < slo.max_evaluations) {
      KVSIM_ASSIGN_OR_RETURN(Probe next, probe(hi / 2));
      if (next.meets) {
        lo = hi / 2;
        result.metrics = std::move(next.metrics);
      } else {
        hi /= 2;
      }
    }
  }
  if (lo == 0) return result;  // nothing met the SLO down to kMinLoad
  result.found = true;
  while (hi > 0 && hi / lo > slo.precision && result.evaluations < slo.max_evaluations) {
    const double mid = std::sqrt(lo * hi);
    KVSIM_ASSIGN_OR_RETURN(Probe next, probe(mid));
    if (next.meets) {
      lo = mid;
      result.metrics = std::move(next.metrics);
    } else {
      hi = mid;
    }
  }
  result.load_factor = lo;
  result.failing_factor = hi;
  return result;
}

}  // namespace kvsim::sim
