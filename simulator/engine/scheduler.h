// Scheduler: vLLM-style continuous batching. Pure decisions: it has no clock; the engine
// (simulator/engine/engine.h) asks it for the next iteration's batch at a point in time, runs the
// iteration and reports back.
//
// One schedule() call, as vLLM v1's Scheduler.schedule() (plus v0's swap queue):
//   1. Running requests, oldest first, each get min(tokens left to compute, token budget)
//      tokens (decode: 1; a chunked prefill: a chunk). Without chunked prefill a request whose
//      tokens exceed the budget waits for an iteration with room. allocate_slots all-or-nothing;
//      on no room the newest running request is preempted and the allocation retried:
//        recompute  cache.preempt(): blocks released (they stay cached until evicted), the
//                   request goes to the front of the waiting queue with computed = 0
//        swap       cache.swap_out(): blocks copied to the host tier and released; the request
//                   waits in the swapped queue (falls back to recompute when the host is full)
//      A request that must preempt itself while running alone can never fit: it is dropped.
//   2. Only when nothing was preempted in this step: swapped requests come back first (FIFO,
//      cache.swap_in(); they rejoin the running batch when the transfer ends), then, once no
//      request is swapped out, waiting requests are admitted first come first served: prefix
//      hit from cache.get_computed_blocks() (the cached prompt tokens are not computed), then
//      the rest (or a chunk) allocated; the first that does not fit (tokens or blocks) stops
//      admission (no overtaking).
//   Both steps respect max_num_seqs (running + swapping in) and max_num_batched_tokens.
//   An admission needs free blocks for its known tokens less its hit when
//   reserve_full_prompt (vLLM v1's scheduler_reserve_full_isl, its default), else for its
//   first chunk; and it leaves watermark_blocks free.
// That is the `vllm` policy (SchedulerLimits::policy). The others (scheduler_policies.cc):
//   vllm-v0  vLLM 0.6 without chunked prefill: while a waiting request can be admitted the
//            iteration holds only whole prompts (step 2 alone); otherwise step 1 (decodes)
//            and swap-ins. Vidur's `vllm` scheduler; watermark 1%.
//   sarathi  Sarathi-Serve (Vidur's `sarathi`): all running decodes first, whatever the budget
//            (which they use up); then chunks for running prompts from what is left (a chunk
//            without free blocks waits: only decodes preempt); then step 2 with the rest.
//            max_num_batched_tokens is the chunk size; watermark 1%.
// complete() applies the iteration: computed tokens advance, a request whose known tokens are
// all computed samples one output token, finished requests are freed.
//
// KV from outside (simulator/engine/kv_connector.h): with connectors set, the waiting head's
// HBM hit is offered to each in turn; one that supplies more KV (a lower tier's blocks, a
// prefill instance's prompt) gets the request admitted with blocks for all of it (no token
// budget), and the request waits for that KV (kWaitingForKv) as a swap-in does: it joins the
// running batch when the KV is in (kv_arrived()). The one token short rule holds for the
// whole hit. On a prefill-only instance (role kPrefill) a request that samples its first token
// and has more to come leaves the batch holding its blocks (kSending, StepResult::prefilled)
// until sent_done().
// Outstanding tokens (for least-loaded routing): over the requests held, the prompt tokens
// not yet computed by an iteration that has ended (or hit in the cache at first admission;
// recomputation is not counted) plus the output tokens still to sample here (a prefill-only
// instance samples one).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "core/cache/kv_cache_coordinator.h"
#include "simulator/engine/cost_model.h"
#include "simulator/engine/kv_connector.h"
#include "simulator/engine/scheduler_limits.h"
#include "simulator/engine/sim_request.h"
#include "simulator/engine/speculation.h"

namespace kvsim::sim {

// One request's share of a step.
struct ScheduledChunk {
  uint32_t slot = 0;
  uint32_t num_tokens = 0;
};

// A swap transfer to start: the request's blocks to or from the host tier.
struct SwapTransfer {
  uint32_t slot = 0;
  uint64_t bytes = 0;
};

// A request admitted with KV from a connector: the transfer to start.
struct ExternalStart {
  uint32_t slot = 0;
  uint32_t connector = 0;  // index in the scheduler's connectors
  ExternalKv kv;
};

// A step's decisions.
struct StepPlan {
  std::vector<ScheduledChunk> chunks;     // the batch, in schedule order
  BatchShape shape;                       // its sums, for the cost model
  std::vector<uint32_t> preempted;        // preempted by recompute this step
  std::vector<SwapTransfer> swapped_out;  // transfers to start, device -> host
  std::vector<SwapTransfer> swapped_in;   // transfers to start, host -> device
  std::vector<uint32_t> dropped;          // can never fit: the engine releases them
  uint64_t recomputed_tokens = 0;         // tokens computed again (lost to a recompute preemption)
  std::vector<ExternalStart> external;    // admitted waiting for a connector's KV
  // Speculative decoding with a draft network: every request of the batch, one token after
  // its context — the batch of the drafter's passes after its first (speculation.h draft_ns).
  BatchShape draft_shape;
  uint64_t verify_tokens = 0;  // tokens of steps verifying drafts (in shape's prefill sums)

  void clear();
  bool has_work() const { return !chunks.empty(); }
};

// What complete() observed.
struct StepResult {
  std::vector<uint32_t> first_tokens;  // sampled their first output token
  std::vector<uint32_t> finished;      // sampled their last output token (freed in the cache)
  std::vector<uint32_t> prefilled;     // prefill role: first token out, KV to send (kSending)
  uint64_t output_tokens = 0;          // output tokens sampled in the step
  uint64_t draft_tokens = 0;           // speculative drafts verified in the step
  uint64_t accepted_draft_tokens = 0;  // of which accepted
  uint64_t verify_steps = 0;           // requests that verified drafts in the step
  void clear() {
    first_tokens.clear();
    finished.clear();
    prefilled.clear();
    output_tokens = 0;
    draft_tokens = 0;
    accepted_draft_tokens = 0;
    verify_steps = 0;
  }
};

class Scheduler {
 public:
  Scheduler(SchedulerLimits limits, KvCacheCoordinator* cache, RequestTable* requests);

  // A request that arrived (already added to the cache manager) joins the waiting queue.
  // A remote request (decode role) has remote_kv, generated = 1 and high_water = prompt.
  void add_waiting(uint32_t slot);
  // Connectors are asked in the order added (see above); they must outlive the scheduler.
  void add_connector(KvConnector* connector) {
    connectors_.push_back(connector);
    budget_free_admissions_ = true;
  }
  const std::vector<KvConnector*>& connectors() const { return connectors_; }
  // Decides the next iteration into *plan.
  void schedule(StepPlan* plan);
  // Applies a finished iteration; finished requests are freed in the cache and leave the
  // running batch (the caller releases their slots).
  void complete(const StepPlan& plan, StepResult* result);
  // A swap transfer ended: out -> the swapped queue; in -> the running batch.
  void swap_out_done(uint32_t slot);
  void swap_in_done(uint32_t slot);
  // The KV a connector supplied for the request is in: it joins the running batch.
  void kv_arrived(uint32_t slot);
  // Prefill role: the request's KV reached the decode instance; it is freed in the cache
  // (its blocks stay cached for later prefix hits) and the caller releases the slot.
  void sent_done(uint32_t slot);
  // The engine drops the request (it leaves the outstanding-token count).
  void forget(uint32_t slot);
  // Removes the head of the swapped (else waiting) queue, freeing it in the cache: the engine
  // calls this when nothing can run although requests wait (they can never fit). Returns the
  // slot, or nothing when both queues are empty.
  std::optional<uint32_t> drop_head();

  size_t num_running() const { return running_.size(); }
  size_t num_waiting() const { return waiting_.size(); }
  // The queues' slots: running in admission order (the back is preempted first), waiting and
  // swapped front first (the next to be admitted or swapped in). For tests and reports.
  const std::vector<uint32_t>& running() const { return running_; }
  const std::deque<uint32_t>& waiting() const { return waiting_; }
  const std::deque<uint32_t>& swapped() const { return swapped_; }
  // Swapped out, swapping out or swapping in.
  size_t num_swapped() const { return swapped_.size() + num_swapping_out_ + num_swapping_in_; }
  size_t num_swapping() const { return num_swapping_out_ + num_swapping_in_; }
  // Requests whose blocks or KV are moving (swaps, KV from connectors, KV sends): the engine
  // must wait for them before it may decide that nothing can ever run.
  size_t num_in_transit() const { return num_swapping() + num_waiting_for_kv_ + num_sending_; }
  size_t num_waiting_for_kv() const { return num_waiting_for_kv_; }
  size_t num_sending() const { return num_sending_; }
  bool idle() const {
    return running_.empty() && waiting_.empty() && swapped_.empty() && num_in_transit() == 0;
  }
  uint64_t outstanding_tokens() const { return outstanding_tokens_; }
  // The request's share of outstanding_tokens().
  uint64_t remaining_tokens(const SimRequest& request) const;

 private:
  // How a connector answered for the waiting head.
  enum class Admission : uint8_t { kNone, kAdmitted, kBlocked };

  bool has_seat() const {
    return running_.size() + num_swapping_in_ + num_waiting_for_kv_ < limits_.max_num_seqs;
  }
  uint64_t attended(uint64_t computed) const;
  // A transfer the request waited for ended (*in_flight counts those of its kind): it joins
  // the running batch. `what` names the transfer in the check's message.
  SimRequest& resume(uint32_t slot, size_t* in_flight, const char* what);
  void add_chunk(uint32_t slot, uint64_t num_tokens, StepPlan* plan);
  // Gives the running request at `index` num_tokens tokens, preempting the newest running
  // requests while there is no room; false when it was itself preempted (or dropped).
  bool schedule_running(size_t index, uint64_t num_tokens, StepPlan* plan);
  // The running requests in admission order, each min(tokens left, *budget) (without chunked
  // prefill a request that does not fit waits), until the budget is spent or one is preempted.
  void schedule_running_in_order(uint64_t* budget, StepPlan* plan);
  // The policies (scheduler_policies.cc).
  void schedule_vllm(StepPlan* plan);
  void schedule_vllm_v0(StepPlan* plan);
  void schedule_sarathi(StepPlan* plan);
  static bool preempted_any(const StepPlan& plan);
  // No request is swapped out or on its way out: waiting requests may be admitted.
  bool may_admit() const;
  void preempt(uint32_t slot, StepPlan* plan);
  void schedule_swapped(StepPlan* plan);
  void schedule_waiting(uint64_t* budget, StepPlan* plan);
  bool fits_with_longest_hit(const SimRequest& request, uint64_t budget) const;
  uint64_t admission_tokens(uint64_t needed, uint64_t chunk) const;
  // The waiting head through the connectors (its hit in hit_).
  Admission admit_through_connectors(uint32_t slot, StepPlan* plan);
  // Admission of the waiting head with KV from connector `c`; false when it does not fit.
  bool admit_external(uint32_t slot, uint32_t c, ExternalKv kv, StepPlan* plan);
  void mark_admitted(SimRequest& request, uint64_t hit_tokens);
  // A step of the request sampled: its drafts are accepted or rejected (their slots given
  // back), and it gains its new output tokens and next drafts (speculation.h). Returns the
  // output tokens sampled.
  uint32_t sample(SimRequest& request, StepResult* result);
  void append_decode_hashes(SimRequest& request);

  SchedulerLimits limits_;
  KvCacheCoordinator* cache_;
  RequestTable* requests_;
  std::vector<uint32_t> running_;  // admission order: the back is the newest
  std::deque<uint32_t> waiting_;
  std::deque<uint32_t> swapped_;  // swapped out, ready to come back
  size_t num_swapping_out_ = 0;
  size_t num_swapping_in_ = 0;
  size_t num_waiting_for_kv_ = 0;
  size_t num_sending_ = 0;
  uint64_t outstanding_tokens_ = 0;
  std::vector<KvConnector*> connectors_;
  bool budget_free_admissions_ = false;  // some connector is set: its admissions need no budget
  PrefixHit hit_;                        // the waiting head's, reused
  std::vector<BlockHash> hash_scratch_;
  DraftAcceptance acceptance_;  // speculative decoding's draws (unused when disabled)
};

}  // namespace kvsim::sim
