#include "kernels/kv_policy.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "core/base/check.h"
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

KvPolicy retention_kv_policy(const RetentionSpec& spec) {
  KvPolicy policy;
  policy.name = retention_text(spec);
  policy.retention = make_retention_policy(spec);
  return policy;
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
  auto retention = parse_retention(spec);
  if (!retention.is_ok()) {
    // A retention policy with bad arguments says so; any other name is unknown.
    if (is_retention_name(spec.substr(0, spec.find(':')))) return retention.status();
    std::vector<std::string> forms = retention_forms();
    forms.insert(forms.end(), {"int8", "int4:G,R"});
    return Status::invalid_argument(unknown_name_message("KV policy", spec, forms));
  }
  return retention_kv_policy(*retention);
}

StatusOr<KvPolicy> kv_policy_at_budget(std::string_view spec, uint64_t budget) {
  KVSIM_ASSIGN_OR_RETURN(KvPolicy policy, parse_kv_policy(spec));
  if (!policy.evicts()) return policy;
  RetentionSpec sized = policy.retention->spec();
  if (budget == 0 || budget > kMaxRetentionTokens) {
    return Status::invalid_argument(
        fmt::format("budget {} is out of range [1, {}] ({})", budget, kMaxRetentionTokens, spec));
  }
  switch (sized.kind) {
    case RetentionKind::kWindow:
      sized.window = budget;
      break;
    case RetentionKind::kSink:
      if (budget <= sized.sink) {
        return Status::invalid_argument(fmt::format(
            "budget {} leaves no window after {} sink tokens ({})", budget, sized.sink, spec));
      }
      sized.window = budget - sized.sink;
      break;
    case RetentionKind::kH2o: {
      // The same heavy-hitter share of the budget.
      const uint64_t whole = sized.sink + sized.window;
      const uint64_t heavy = static_cast<uint64_t>(
          std::llround(static_cast<double>(budget) * static_cast<double>(sized.sink) / whole));
      if (heavy == 0 || heavy >= budget) {
        return Status::invalid_argument(
            fmt::format("budget {} is too small to split as {} (heavy hitters and recent "
                        "tokens)",
                        budget, spec));
      }
      sized = {RetentionKind::kH2o, heavy, budget - heavy};
      break;
    }
    case RetentionKind::kFull:
      KVSIM_CHECK(false, "a full retention evicts nothing");
  }
  return retention_kv_policy(sized);
}

}  // namespace kvsim::kernels
