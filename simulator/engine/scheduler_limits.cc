#include "simulator/engine/scheduler_limits.h"

#include "core/base/enum_names.h"

namespace kvsim::sim {
namespace {

constexpr EnumNames<PreemptionMode, 2> kPreemptionNames{{{
    {PreemptionMode::kRecompute, "recompute"},
    {PreemptionMode::kSwap, "swap"},
}}};

constexpr EnumNames<EngineRole, 3> kRoleNames{{{
    {EngineRole::kColocated, "colocated"},
    {EngineRole::kPrefill, "prefill"},
    {EngineRole::kDecode, "decode"},
}}};

constexpr EnumNames<SchedulerPolicy, 3> kPolicyNames{{{
    {SchedulerPolicy::kVllm, "vllm"},
    {SchedulerPolicy::kVllmV0, "vllm-v0"},
    {SchedulerPolicy::kSarathi, "sarathi"},
}}};

}  // namespace

std::string_view scheduler_policy_name(SchedulerPolicy policy) { return kPolicyNames.name(policy); }

StatusOr<SchedulerPolicy> parse_scheduler_policy(std::string_view name) {
  return kPolicyNames.parse(name, "scheduler policy");
}

std::string_view preemption_mode_name(PreemptionMode mode) { return kPreemptionNames.name(mode); }

StatusOr<PreemptionMode> parse_preemption_mode(std::string_view name) {
  return kPreemptionNames.parse(name, "preemption mode");
}

std::vector<std::string> preemption_mode_names() { return kPreemptionNames.names(); }

std::string_view engine_role_name(EngineRole role) { return kRoleNames.name(role); }

}  // namespace kvsim::sim
