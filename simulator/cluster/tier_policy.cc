#include "simulator/cluster/tier_policy.h"

#include "core/enum_names.h"

namespace kvsim::sim {
namespace {

constexpr EnumNames<TierWritePolicy, 2> kWritePolicyNames{{{
    {TierWritePolicy::kOnEvict, "on_evict"},
    {TierWritePolicy::kWriteThrough, "write_through"},
}}};

}  // namespace

std::string_view tier_write_policy_name(TierWritePolicy policy) {
  return kWritePolicyNames.name(policy);
}

StatusOr<TierWritePolicy> parse_tier_write_policy(std::string_view name) {
  return kWritePolicyNames.parse(name, "tier write policy");
}

}  // namespace kvsim::sim
