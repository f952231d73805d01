// Scheduler: vLLM-style continuous batching. Pure decisions: it has no clock; the engine
// (simulator/engine.h) asks it for the next iteration's batch at a point in time, runs the
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
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "core/kv_cache_manager.h"
#include "simulator/cost_model.h"
#include "simulator/scenario.h"
#include "simulator/sim_request.h"

namespace kvsim::sim {

struct SchedulerLimits {
  uint32_t max_num_seqs = 256;
  uint32_t max_num_batched_tokens = 8192;
  bool chunked_prefill = true;
  PreemptionMode preemption = PreemptionMode::kRecompute;
  bool prefix_caching = true;
  // Positions a sequence attends to (the retention policy's sink + window); 0 = all.
  uint64_t attention_sink_tokens = 0;
  uint64_t attention_window_tokens = 0;
};

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

  void clear();
  bool has_work() const { return !chunks.empty(); }
};

// What complete() observed.
struct StepResult {
  std::vector<uint32_t> first_tokens;  // sampled their first output token
  std::vector<uint32_t> finished;      // sampled their last output token (freed in the cache)
  uint64_t output_tokens = 0;          // output tokens sampled in the step
  void clear() {
    first_tokens.clear();
    finished.clear();
    output_tokens = 0;
  }
};

class Scheduler {
 public:
  Scheduler(SchedulerLimits limits, KvCacheManager* cache, RequestTable* requests);

  // A request that arrived (already added to the cache manager) joins the waiting queue.
  void add_waiting(uint32_t slot);
  // Decides the next iteration into *plan.
  void schedule(StepPlan* plan);
  // Applies a finished iteration; finished requests are freed in the cache and leave the
  // running batch (the caller releases their slots).
  void complete(const StepPlan& plan, StepResult* result);
  // A swap transfer ended: out -> the swapped queue; in -> the running batch.
  void swap_out_done(uint32_t slot);
  void swap_in_done(uint32_t slot);
  // Removes the head of the swapped (else waiting) queue, freeing it in the cache: the engine
  // calls this when nothing can run although requests wait (they can never fit). Returns the
  // slot, or -1 when both queues are empty.
  int64_t drop_head();

  size_t num_running() const { return running_.size(); }
  size_t num_waiting() const { return waiting_.size(); }
  // Swapped out, swapping out or swapping in.
  size_t num_swapped() const { return swapped_.size() + num_swapping_out_ + num_swapping_in_; }
  size_t num_swapping() const { return num_swapping_out_ + num_swapping_in_; }
  bool idle() const { return running_.empty() && waiting_.empty() && num_swapped() == 0; }

 private:
  bool has_seat() const { return running_.size() + num_swapping_in_ < limits_.max_num_seqs; }
  uint64_t attended(uint64_t computed) const;
  void add_chunk(uint32_t slot, uint64_t num_tokens, StepPlan* plan);
  // Tries to give the running request at `index` its tokens; false when it was preempted.
  bool schedule_running(size_t index, uint64_t* budget, StepPlan* plan);
  void preempt(uint32_t slot, StepPlan* plan);
  void schedule_swapped(StepPlan* plan);
  void schedule_waiting(uint64_t* budget, StepPlan* plan);
  void append_decode_hashes(SimRequest& request);

  SchedulerLimits limits_;
  KvCacheManager* cache_;
  RequestTable* requests_;
  std::vector<uint32_t> running_;  // admission order: the back is the newest
  std::deque<uint32_t> waiting_;
  std::deque<uint32_t> swapped_;  // swapped out, ready to come back
  size_t num_swapping_out_ = 0;
  size_t num_swapping_in_ = 0;
  std::vector<BlockHash> hash_scratch_;
};

}  // namespace kvsim::sim
