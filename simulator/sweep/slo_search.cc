#include "simulator/sweep/slo_search.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

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
  std::string violated;  // the limit missed, when !meets
};

double metric_or_zero(const FlatMetrics& metrics, const char* key) {
  const auto it = metrics.find(key);
  return it == metrics.end() ? 0.0 : it->second;
}

// SloSearchResult::binding for the lowest failing probe, against the answer's metrics.
std::string binding_of(const std::optional<Probe>& lowest_failing, const FlatMetrics& answer) {
  if (!lowest_failing) return "none (no load up to the highest tried missed the SLO)";
  const Probe& failing = *lowest_failing;
  const double dropped = metric_or_zero(failing.metrics, "requests_dropped");
  if (dropped > metric_or_zero(answer, "requests_dropped")) {
    return fmt::format("drops ({} requests dropped)", format_number(dropped));
  }
  const double preemptions = metric_or_zero(failing.metrics, "preemptions");
  const double kv_peak = metric_or_zero(failing.metrics, "kv_usage_peak");
  if (preemptions > 0 || kv_peak >= 0.95) {
    return fmt::format("KV memory ({}; KV peak {}%, {} preemptions)", failing.violated,
                       format_fixed(kv_peak * 100, 1), format_number(preemptions));
  }
  return failing.violated;
}

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
    const bool meets = meets_slo(metrics, slo, &violated);
    return Probe{meets, std::move(metrics), std::move(violated)};
  };
  std::optional<Probe> lowest_failing;  // probes fail at ever lower loads: the last is lowest
  const auto note = [&](Probe* failed) {
    if (!failed->meets) lowest_failing = std::move(*failed);
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
        note(&next);
      }
    }
  } else {
    hi = load;
    note(&first);
    while (lo == 0 && hi > kMinLoad && result.evaluations < slo.max_evaluations) {
      KVSIM_ASSIGN_OR_RETURN(Probe next, probe(hi / 2));
      if (next.meets) {
        lo = hi / 2;
        result.metrics = std::move(next.metrics);
      } else {
        hi /= 2;
        note(&next);
      }
    }
  }
  result.binding = binding_of(lowest_failing, result.metrics);
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
      note(&next);
    }
  }
  result.load_factor = lo;
  result.failing_factor = hi;
  result.binding = binding_of(lowest_failing, result.metrics);
  return result;
}

}  // namespace kvsim::sim
