#include "kernels/kv_policy.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "core/base/names.h"
#include "core/config/config_reader.h"

namespace kvsim::kernels {
namespace {

// "int4:G,R" -> G, R (positive).
StatusOr<KiviConfig> parse_int4(std::string_view args) {
  const size_t comma = args.find(',');
  uint64_t group = 0;
  uint64_t residual = 0;
  if (comma == std::string_view::npos || !parse_uint64(args.substr(0, comma), &group).is_ok() ||
      !parse_uint64(args.substr(comma + 1), &residual).is_ok() || group == 0 || residual == 0 ||
      group > 4096 || residual > (1u << 20)) {
    return Status::invalid_argument(
        fmt::format("KV policy 'int4:{}': expected int4:G,R with a group size G in 1..4096 and "
                    "a residual length R >= 1",
                    args));
  }
  return KiviConfig{static_cast<uint32_t>(group), static_cast<uint32_t>(residual)};
}

}  // namespace

StatusOr<KvPolicy> parse_kv_policy(std::string_view spec) {
  KvPolicy policy;
  if (spec == "int8") {
    policy.name = "int8";
    policy.quant = KvQuant::kInt8;
    return policy;
  }
  if (spec.substr(0, 5) == "int4:") {
    KVSIM_ASSIGN_OR_RETURN(policy.kivi, parse_int4(spec.substr(5)));
    policy.quant = KvQuant::kInt4Kivi;
    policy.name = fmt::format("int4:{},{}", policy.kivi.group, policy.kivi.residual);
    return policy;
  }
  auto retention = make_retention_policy(spec);
  if (!retention.is_ok()) {
    const std::string name(spec.substr(0, spec.find(':')));
    for (const char* known : {"full", "window", "sink", "h2o"}) {
      if (name == known) return retention.status();  // a known policy with bad arguments
    }
    return Status::invalid_argument(unknown_name_message(
        "KV policy", spec, {"full", "window:W", "sink:S,W", "h2o:H,R", "int8", "int4:G,R"}));
  }
  policy.name = (*retention)->name();
  policy.retention = std::move(retention).value();
  return policy;
}

StatusOr<KvPolicy> kv_policy_at_budget(std::string_view spec, uint64_t budget) {
  KVSIM_ASSIGN_OR_RETURN(KvPolicy policy, parse_kv_policy(spec));
  if (!policy.evicts()) return policy;
  const std::string name(spec.substr(0, spec.find(':')));
  if (name == "window") return parse_kv_policy(fmt::format("window:{}", budget));
  const uint64_t whole = *policy.budget_tokens();
  const uint64_t first = policy.retention->sink_tokens();  // S of sink:S,W, H of h2o:H,R
  if (name == "sink") {
    if (budget <= first) {
      return Status::invalid_argument(
          fmt::format("budget {} leaves no window after {} sink tokens ({})", budget, first, spec));
    }
    return parse_kv_policy(fmt::format("sink:{},{}", first, budget - first));
  }
  // h2o: the same heavy-hitter share of the budget.
  const uint64_t heavy = static_cast<uint64_t>(
      std::llround(static_cast<double>(budget) * static_cast<double>(first) / whole));
  if (heavy == 0 || heavy >= budget) {
    return Status::invalid_argument(fmt::format(
        "budget {} is too small to split as {} (heavy hitters and recent tokens)", budget, spec));
  }
  return parse_kv_policy(fmt::format("h2o:{},{}", heavy, budget - heavy));
}

}  // namespace kvsim::kernels
