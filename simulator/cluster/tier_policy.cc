#include "simulator/cluster/tier_policy.h"

#include "core/base/enum_names.h"

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

StatusOr<uint32_t> blocks_per_chunk(uint32_t chunk_tokens, uint32_t block_size,
                                    const std::string& replica) {
  if (chunk_tokens == 0) return 1u;
  if (block_size == 0 || chunk_tokens % block_size != 0) {
    return Status::invalid_argument("tiers.chunk_tokens: " + std::to_string(chunk_tokens) +
                                    " is not a multiple of replica " + replica + "'s block size (" +
                                    std::to_string(block_size) + " tokens)");
  }
  return chunk_tokens / block_size;
}

}  // namespace kvsim::sim
