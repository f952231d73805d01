// SchedulerLimits: what one engine's scheduler may do in an iteration and how it preempts
// (simulator/engine/scheduler.h), and the role the engine plays. The scenario's
// `scheduler:` section fills it (simulator/scenario/scenario.h); the YAML names of the enums
// are here, beside the enums.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/status.h"

namespace kvsim::sim {

enum class PreemptionMode : uint8_t {
  kRecompute,  // "recompute": blocks released, the request recomputes what the cache lost
  kSwap,       // "swap": blocks copied to the host tier and back (vLLM v0)
};
std::string_view preemption_mode_name(PreemptionMode mode);
StatusOr<PreemptionMode> parse_preemption_mode(std::string_view name);

// What an instance does: everything, or one side of a disaggregated pair.
enum class EngineRole : uint8_t {
  kColocated,  // "colocated": prefill and decode
  kPrefill,    // "prefill": hands each request on after its first token
  kDecode,     // "decode": takes over prefilled requests, their prompt's KV sent to it
};
std::string_view engine_role_name(EngineRole role);

struct SchedulerLimits {
  uint32_t max_num_seqs = 256;             // requests in one batch
  uint32_t max_num_batched_tokens = 8192;  // tokens computed per iteration
  bool chunked_prefill = true;             // split long prompts over iterations
  PreemptionMode preemption = PreemptionMode::kRecompute;
  bool prefix_caching = true;
  // Positions a sequence attends to (the retention policy's sink + window); 0 = all.
  uint64_t attention_sink_tokens = 0;
  uint64_t attention_window_tokens = 0;
  EngineRole role = EngineRole::kColocated;
};

}  // namespace kvsim::sim
