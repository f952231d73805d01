// SchedulerLimits: what one engine's scheduler may do in an iteration and how it preempts
// (simulator/engine/scheduler.h), and the role the engine plays. The scenario's
// `scheduler:` section fills it (simulator/scenario/scenario.h); the YAML names of the enums
// are here, beside the enums.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "simulator/engine/speculation.h"

namespace kvsim::sim {

enum class PreemptionMode : uint8_t {
  kRecompute,  // "recompute": blocks released, the request recomputes what the cache lost
  kSwap,       // "swap": blocks copied to the host tier and back (vLLM v0)
};
std::string_view preemption_mode_name(PreemptionMode mode);
StatusOr<PreemptionMode> parse_preemption_mode(std::string_view name);
// Every name, in table order: recompute, swap.
std::vector<std::string> preemption_mode_names();

// What an instance does: everything, or one side of a disaggregated pair.
enum class EngineRole : uint8_t {
  kColocated,  // "colocated": prefill and decode
  kPrefill,    // "prefill": hands each request on after its first token
  kDecode,     // "decode": takes over prefilled requests, their prompt's KV sent to it
};
std::string_view engine_role_name(EngineRole role);

// How the scheduler forms batches (simulator/engine/scheduler.h; docs/simulator.md "Batching
// policies" says where each rule comes from).
enum class SchedulerPolicy : uint8_t {
  kVllm,     // "vllm": vLLM v1 — running requests first (decodes and chunks in admission
             // order, one token budget), then admissions; prefill chunks and decodes mix
  kVllmV0,   // "vllm-v0": vLLM 0.6 without chunked prefill (Vidur's `vllm`): while a waiting
             // request can be admitted, an iteration holds only whole prompts; else decodes
  kSarathi,  // "sarathi": Sarathi-Serve (Vidur's `sarathi`): every decode first, then chunks
             // of running and new prompts from what is left of the chunk budget
};
std::string_view scheduler_policy_name(SchedulerPolicy policy);
StatusOr<SchedulerPolicy> parse_scheduler_policy(std::string_view name);

struct SchedulerLimits {
  SchedulerPolicy policy = SchedulerPolicy::kVllm;
  uint32_t max_num_seqs = 256;             // requests in one batch
  uint32_t max_num_batched_tokens = 8192;  // tokens computed per iteration
  bool chunked_prefill = true;             // split long prompts over iterations
  // An admission needs free blocks for all its known tokens (less its prefix hit), though only
  // its first chunk is allocated: vLLM v1's scheduler_reserve_full_isl (default True).
  bool reserve_full_prompt = true;
  // Admissions leave this many blocks free (vLLM v0's and Vidur's watermark, 1% of the pool).
  uint32_t watermark_blocks = 0;
  PreemptionMode preemption = PreemptionMode::kRecompute;
  bool prefix_caching = true;
  // Positions a sequence attends to (the retention policy's sink + window); 0 = all.
  uint64_t attention_sink_tokens = 0;
  uint64_t attention_window_tokens = 0;
  // The model's sliding-group window for the cost model (BatchShape::window_tokens; hybrid
  // models, simulator/cost/layer_kind_costs.h cost_window_tokens); 0 = none.
  uint32_t cost_window_tokens = 0;
  EngineRole role = EngineRole::kColocated;
  // Speculative decoding (policy vllm only); disabled by default.
  SpeculativeConfig speculative;
};

}  // namespace kvsim::sim
