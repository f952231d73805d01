// Speculative decoding: a drafter proposes k tokens after each sampled token, the target model
// verifies them with the next token in one pass of 1 + k tokens per sequence, and keeps the
// longest accepted prefix of the drafts plus one token of its own (vLLM v1's rejection
// sampler). kvsim does not run a drafter: how many drafts a step accepts is drawn (seeded)
// from the acceptance rates the scenario states.
//
// The scheduler's rules (vLLM v1 at 28be48fa, vllm/v1/core/sched/scheduler.py), used by
// simulator/engine/scheduler.h:
//   - A running request with d pending drafts schedules 1 + d tokens (L395-401); a token budget
//     too small for them cuts the drafts (it schedules what fits).
//   - allocate_slots of a running request reserves num_lookahead_tokens slots more (L444-448):
//     k for the methods that write the drafts' KV (eagle, eagle3, mtp, draft_model: the
//     draft's own KV layers run over the proposed positions), 0 for ngram (speculative.py:
//     use_eagle() / uses_draft_model()). Admissions reserve none (L705: lookahead 0 for a
//     request with no computed tokens).
//   - After the step: a accepted of d, the d - a rejected slots are given back
//     (num_computed_tokens -= num_rejected, L1370-1387; the blocks stay in the table), the
//     request gains 1 + a output tokens, and a request that is not in a prefill chunk gets k
//     new drafts (update_draft_token_ids, L1697) — in kvsim at most its output tokens left
//     less one (vLLM drafts k and drops what a stop discards; kvsim knows the output length,
//     so it never schedules a draft past it).
//   - A preempted request loses its drafts.
// Acceptance: `acceptance` are vLLM's per-position acceptance rates (its spec-decode metrics'
// "per-position acceptance rate"): r_i = P(draft i accepted) = P(a >= i), non-increasing. A
// single rate p means i.i.d. positions, r_i = p^i, so E[1 + a] = (1 - p^(k+1)) / (1 - p).
// A CSV trace may give each request its own i.i.d. rate (column `acceptance`, in [0, 1]); it
// replaces the scenario's rates for that request.
// Draws: position i is accepted given i - 1 was with probability r_i / r_(i-1), one uniform
// draw each from a std::mt19937_64 seeded with `seed` (the draws follow the schedule's order,
// so a run is reproducible).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "simulator/engine/cost_model.h"

namespace kvsim::sim {

enum class SpeculativeMethod : uint8_t {
  kEagle,       // "eagle": a one-layer draft head over the target's hidden states
  kEagle3,      // "eagle3": EAGLE-3's head (one layer over three of the target's layers)
  kMtp,         // "mtp": the checkpoint's multi-token-prediction layer (DeepSeek-V3, Qwen3-Next)
  kNgram,       // "ngram": prompt lookup on the CPU; no draft model, no lookahead slots
  kDraftModel,  // "draft_model": a smaller model of the same vocabulary
};
std::string_view speculative_method_name(SpeculativeMethod method);
StatusOr<SpeculativeMethod> parse_speculative_method(std::string_view name);

// The most drafts a step may verify (a scenario's num_speculative_tokens, --speculative's K).
inline constexpr uint32_t kMaxSpeculativeTokens = 32;

struct SpeculativeConfig {
  SpeculativeMethod method = SpeculativeMethod::kEagle;
  uint32_t num_speculative_tokens = 0;  // k; 0 = no speculative decoding
  std::vector<double> acceptance;       // r_1 .. r_k (above), in [0, 1], non-increasing
  uint64_t seed = 0;

  bool enabled() const { return num_speculative_tokens > 0; }
  // Slots a running request's allocation reserves past its scheduled tokens.
  uint32_t lookahead_tokens() const {
    return method == SpeculativeMethod::kNgram ? 0 : num_speculative_tokens;
  }
  // Enabled with a method that runs a draft network on the device (its passes cost time).
  bool runs_draft_model() const { return enabled() && method != SpeculativeMethod::kNgram; }
};

// The per-position rates of k positions from what a scenario states: one rate p (i.i.d.,
// r_i = p^i) or k rates. Errors name the field: a rate outside [0, 1], a rising list, a list
// of another length.
StatusOr<std::vector<double>> acceptance_rates(const std::vector<double>& stated, uint32_t k);

// The drafter's time after a step over `batch` (vLLM's EAGLE speculator,
// vllm/v1/worker/gpu/spec_decode/eagle/speculator.py at 28be48fa, propose()): a first pass over
// every token the target computed — the draft layer keeps KV of its own for every position, so
// it runs the prompt chunks and verifications too, with logits at each request's last token
// (its "prefill") — then k - 1 passes of one token per request (generate_draft), `decodes`:
//   draft_ns = draft(batch, one sampled row per request) + (k - 1) x draft(decodes)
// `draft` is the drafter's cost model; batch and decodes non-empty.
int64_t draft_ns(const CostModel& draft, const BatchShape& batch, const BatchShape& decodes,
                 uint32_t k);
// Its parts, for `kvsim cost`: the first pass and one later pass.
int64_t draft_first_pass_ns(const CostModel& draft, const BatchShape& batch);

// Seeded acceptance draws.
class DraftAcceptance {
 public:
  explicit DraftAcceptance(const SpeculativeConfig& config);
  // Drafts accepted of `drafts` proposed (drafts <= k): the longest accepted prefix, by the
  // scenario's rates, or with `own_rate` >= 0 by that i.i.d. rate (a request's trace column).
  uint32_t accepted(uint32_t drafts, double own_rate = -1);

 private:
  std::vector<double> conditional_;  // P(position i accepted | i - 1 was), i = 1..k
  std::mt19937_64 rng_;
};

}  // namespace kvsim::sim
