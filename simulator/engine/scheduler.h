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
// complete() applies the iteration: computed tokens advance, a request whose known tokens are
// all computed samples one output token, finished requests are freed.
//
// In a cluster (simulator/cluster/cluster.h) three more ways into the batch, each like a swap-in
// (admitted with its blocks, it joins the running batch when its KV has arrived):
//   lower tiers  with ReplicaTiers set, a waiting request's HBM hit continues into the lower
//                tiers: the blocks found there are allocated now (HBM blocks for the hit plus
//                the loaded run; no token budget) and loaded (kLoading, load_done()); the one
//                token short rule holds for the whole hit
//   prefill role a request that samples its first token and has more to come leaves the batch
//                holding its blocks (kSending, StepResult::prefilled) until sent_done()
//   decode role  a remote request (its prompt's KV computed elsewhere) is admitted in turn
//                from the waiting queue: the local prefix hit is taken, blocks for the rest of
//                the prompt allocated (no token budget), and it waits for the KV (kReceiving,
//                StepPlan::receiving, receive_done())
// Outstanding tokens (for least-loaded routing): over the requests held, the prompt tokens
// not yet computed by an iteration that has ended (or hit in the cache at first admission;
// recomputation is not counted) plus the output tokens still to sample here (a prefill-only
// instance samples one).
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "core/kv_cache_manager.h"
#include "simulator/engine/cost_model.h"
#include "simulator/cluster/kv_tiers.h"
#include "simulator/engine/scheduler_limits.h"
#include "simulator/engine/sim_request.h"

namespace kvsim::sim {

// One request's share of a step.
struct ScheduledChunk {
  uint32_t slot = 0;
  uint32_t num_tokens = 0;
};

// A step's decisions.
struct StepPlan {
  std::vector<ScheduledChunk> chunks;                      // the batch, in schedule order
  BatchShape shape;                                        // its sums, for the cost model
  std::vector<uint32_t> preempted;                         // preempted by recompute this step
  std::vector<std::pair<uint32_t, uint64_t>> swapped_out;  // (slot, bytes) transfers to start
  std::vector<std::pair<uint32_t, uint64_t>> swapped_in;   // (slot, bytes) transfers to start
  std::vector<uint32_t> dropped;   // can never fit: the engine releases them
  std::vector<uint32_t> admitted;  // scheduled for the first time
  uint64_t recomputed_tokens = 0;  // tokens computed again (lost to a recompute preemption)
  std::vector<std::pair<uint32_t, LowerHit>> loads;        // (slot, blocks per tier) to load
  std::vector<std::pair<uint32_t, uint32_t>> receiving;    // (slot, blocks) of remote KV

  void clear();
  bool has_work() const { return !chunks.empty(); }
};

// What complete() observed.
struct StepResult {
  std::vector<uint32_t> first_tokens;  // sampled their first output token
  std::vector<uint32_t> finished;      // sampled their last output token (freed in the cache)
  std::vector<uint32_t> prefilled;     // prefill role: first token out, KV to send (kSending)
  uint64_t output_tokens = 0;          // output tokens sampled in the step
  void clear() {
    first_tokens.clear();
    finished.clear();
    prefilled.clear();
    output_tokens = 0;
  }
};

class Scheduler {
 public:
  Scheduler(SchedulerLimits limits, KvCacheManager* cache, RequestTable* requests);

  // A request that arrived (already added to the cache manager) joins the waiting queue.
  // A remote request (decode role) has remote_kv, generated = 1 and high_water = prompt.
  void add_waiting(uint32_t slot);
  // The lower tiers a waiting request's prefix hit may continue into (nullptr: none).
  void set_tiers(ReplicaTiers* tiers) { tiers_ = tiers; }
  // Decides the next iteration into *plan.
  void schedule(StepPlan* plan);
  // Applies a finished iteration; finished requests are freed in the cache and leave the
  // running batch (the caller releases their slots).
  void complete(const StepPlan& plan, StepResult* result);
  // A swap transfer ended: out -> the swapped queue; in -> the running batch.
  void swap_out_done(uint32_t slot);
  void swap_in_done(uint32_t slot);
  // Every lower-tier load of the request ended: it joins the running batch.
  void load_done(uint32_t slot);
  // Prefill role: the request's KV reached the decode instance; it is freed in the cache
  // (its blocks stay cached for later prefix hits) and the caller releases the slot.
  void sent_done(uint32_t slot);
  // Decode role: the remote request's KV arrived; it joins the running batch.
  void receive_done(uint32_t slot);
  // The engine drops the request (it leaves the outstanding-token count).
  void forget(uint32_t slot);
  // Removes the head of the swapped (else waiting) queue, freeing it in the cache: the engine
  // calls this when nothing can run although requests wait (they can never fit). Returns the
  // slot, or -1 when both queues are empty.
  int64_t drop_head();

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
  // Requests whose blocks or KV are moving (swaps, tier loads, KV sends and receives): the
  // engine must wait for them before it may decide that nothing can ever run.
  size_t num_in_transit() const {
    return num_swapping() + num_loading_ + num_sending_ + num_receiving_;
  }
  size_t num_loading() const { return num_loading_; }
  size_t num_sending() const { return num_sending_; }
  size_t num_receiving() const { return num_receiving_; }
  bool idle() const {
    return running_.empty() && waiting_.empty() && swapped_.empty() && num_in_transit() == 0;
  }
  uint64_t outstanding_tokens() const { return outstanding_tokens_; }
  // The request's share of outstanding_tokens().
  uint64_t remaining_tokens(const SimRequest& request) const;

 private:
  bool has_seat() const {
    return running_.size() + num_swapping_in_ + num_loading_ + num_receiving_ <
           limits_.max_num_seqs;
  }
  uint64_t attended(uint64_t computed) const;
  // A transfer the request waited for ended (*in_flight counts those of its kind): it joins
  // the running batch. `what` names the transfer in the check's message.
  SimRequest& resume(uint32_t slot, size_t* in_flight, const char* what);
  void add_chunk(uint32_t slot, uint64_t num_tokens, StepPlan* plan);
  // Tries to give the running request at `index` its tokens; false when it was preempted.
  bool schedule_running(size_t index, uint64_t* budget, StepPlan* plan);
  void preempt(uint32_t slot, StepPlan* plan);
  void schedule_swapped(StepPlan* plan);
  void schedule_waiting(uint64_t* budget, StepPlan* plan);
  // Admission of the waiting head when it needs no compute now; false when it does not fit.
  bool admit_remote(uint32_t slot, const PrefixHit& hit, StepPlan* plan);
  bool admit_loading(uint32_t slot, const PrefixHit& hit, const LowerHit& lower, StepPlan* plan);
  void mark_admitted(SimRequest& request, uint64_t hit_tokens, uint32_t slot, StepPlan* plan);
  void append_decode_hashes(SimRequest& request);

  SchedulerLimits limits_;
  KvCacheManager* cache_;
  RequestTable* requests_;
  std::vector<uint32_t> running_;  // admission order: the back is the newest
  std::deque<uint32_t> waiting_;
  std::deque<uint32_t> swapped_;  // swapped out, ready to come back
  size_t num_swapping_out_ = 0;
  size_t num_swapping_in_ = 0;
  size_t num_loading_ = 0;
  size_t num_sending_ = 0;
  size_t num_receiving_ = 0;
  uint64_t outstanding_tokens_ = 0;
  ReplicaTiers* tiers_ = nullptr;
  std::vector<BlockHash> hash_scratch_;
};

}  // namespace kvsim::sim
