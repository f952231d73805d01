// SimRequest: the engine's state of one request in flight, and RequestTable, the slab that
// holds them.
//
// Token accounting (as vLLM v1 counts it): a request of P prompt and O output tokens has
// `generated` output tokens so far and `computed` tokens whose KV is in the cache. It has
// P + generated known tokens; each iteration computes some of the known tokens not yet
// computed, and when computed reaches P + generated the model samples one more output token.
// So the prefill (one or more chunks) yields the first token (TTFT), each decode iteration
// computes the newest token and yields the next, and the request ends when generated == O,
// holding P + O - 1 tokens of KV. Preemption by recompute sets computed back to 0 (the known
// tokens are computed again, minus what the prefix cache still holds); swap keeps it.
//
// In a cluster (simulator/cluster/cluster.h) a request may also wait for KV that a connector
// supplies (simulator/engine/kv_connector.h, kWaitingForKv): prefix blocks loaded from a lower
// tier of the KV pool, or, on a decode-only instance, its prompt's KV sent by the prefill
// instance (the sender keeps its copy, kSending, until the transfer ends). A remote request
// (remote_kv) arrives with generated = 1 — the prefill sampled the first token — and
// computed = prompt once its KV is in.
//
// RequestTable: slots are recycled, so memory follows the requests in flight, never the
// workload's length. A slot index is the handle the scheduler's queues hold.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/base/check.h"
#include "core/cache/block_id.h"

namespace kvsim::sim {

enum class RequestPhase : uint8_t {
  kWaiting,       // queued for (re)admission; holds no blocks (prefix hits aside)
  kRunning,       // in the running batch; holds blocks
  kSwappingOut,   // blocks on their way to the host tier
  kSwapped,       // blocks on the host tier, waiting to come back
  kSwappingIn,    // blocks on their way back
  kWaitingForKv,  // admitted with blocks; KV from a connector (lower tier, prefill) on its way
  kSending,       // prefill-only instance: prefill done, blocks held until sent to decode
  kFree,          // slot not in use
};

// The lower tiers of a KV pool below HBM (host DRAM, SSD, ...) a request can hit in.
inline constexpr int kMaxLowerTiers = 4;

struct SimRequest {
  RequestId id = 0;  // the workload's id (also the cache manager's)
  uint32_t prompt_tokens = 0;
  uint32_t output_tokens = 0;
  uint32_t generated = 0;             // output tokens sampled so far
  uint32_t scheduled_tokens = 0;      // tokens scheduled in the iteration in flight
  uint64_t computed = 0;              // tokens whose KV is in the cache
  uint64_t high_water = 0;            // most tokens ever computed (or cached at admission)
  uint32_t num_hashes = 0;            // block hashes given to the cache manager
  uint32_t cached_prompt_tokens = 0;  // prefix-cache hit at first admission
  uint32_t prompt_done = 0;           // prompt tokens computed once or hit (outstanding work)
  uint32_t preemptions = 0;
  // Speculative decoding (simulator/engine/speculation.h): draft tokens proposed after the last
  // sampled token, verified with it by the request's next step.
  uint16_t drafts = 0;
  float acceptance = -1;  // the request's own i.i.d. acceptance rate; < 0: the scenario's
  RequestPhase phase = RequestPhase::kFree;
  bool admitted = false;      // scheduled at least once
  bool remote_kv = false;     // decode-only instance: the prompt's KV is still to come
  uint8_t pending_loads = 0;  // transfers it waits for (kWaitingForKv)
  std::optional<uint32_t> prefill_replica;  // where the prefill ran when not here
  uint32_t peer_slot = 0;                   // the request's slot on prefill_replica
  // Prompt tokens of the first-admission hit that came from each lower tier (the rest of
  // cached_prompt_tokens was in HBM).
  uint32_t lower_hit_tokens[kMaxLowerTiers] = {0, 0, 0, 0};
  std::optional<int64_t> prefilled_ns;   // disaggregated: when the prefill ended
  std::optional<int64_t> kv_arrived_ns;  // disaggregated: when the KV transfer ended
  int64_t arrival_ns = 0;
  std::optional<int64_t> first_scheduled_ns;  // start of the first iteration it was in
  std::optional<int64_t> first_token_ns;      // end of the iteration that sampled output token 1

  uint64_t known_tokens() const { return uint64_t{prompt_tokens} + generated; }
  // The known tokens not yet computed and the drafts to verify with them.
  uint64_t tokens_to_compute() const { return known_tokens() + drafts - computed; }
  bool in_prefill() const { return computed < prompt_tokens; }
  // True when computing `num_tokens` more tokens now ends the prefill: the request has
  // sampled nothing yet and they reach its last prompt token (it samples its first token).
  bool ends_prefill(uint64_t num_tokens) const {
    return generated == 0 && computed + num_tokens >= known_tokens();
  }
};

class RequestTable {
 public:
  // A slot holding `request` (phase must not be kFree).
  uint32_t add(const SimRequest& request) {
    uint32_t slot = 0;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
      slots_[slot] = request;
    } else {
      slot = static_cast<uint32_t>(slots_.size());
      slots_.push_back(request);
    }
    ++num_live_;
    return slot;
  }
  void release(uint32_t slot) {
    KVSIM_CHECK(slots_[slot].phase != RequestPhase::kFree, "slot released twice");
    slots_[slot].phase = RequestPhase::kFree;
    free_slots_.push_back(slot);
    --num_live_;
  }
  SimRequest& at(uint32_t slot) { return slots_[slot]; }
  const SimRequest& at(uint32_t slot) const { return slots_[slot]; }
  size_t num_live() const { return num_live_; }

 private:
  std::vector<SimRequest> slots_;
  std::vector<uint32_t> free_slots_;
  size_t num_live_ = 0;
};

}  // namespace kvsim::sim
