// The three batching policies of the Scheduler (simulator/engine/scheduler.h): which requests
// an iteration takes, in what order, with what token budget. Allocation, preemption and
// admission are shared (scheduler.cc).
#include <algorithm>

#include "simulator/engine/scheduler.h"

namespace kvsim::sim {

bool Scheduler::preempted_any(const StepPlan& plan) {
  return !plan.preempted.empty() || !plan.swapped_out.empty() || !plan.dropped.empty();
}

bool Scheduler::may_admit() const { return swapped_.empty() && num_swapping_out_ == 0; }

// vLLM v1 (vllm/v1/core/sched/scheduler.py, schedule()): running requests in admission order
// each get min(tokens left, budget) — decodes and prefill chunks alike — then, unless something
// was preempted, swapped requests come back and waiting ones are admitted with what is left.
void Scheduler::schedule_vllm(StepPlan* plan) {
  uint64_t budget = limits_.max_num_batched_tokens;
  schedule_running_in_order(&budget, plan);
  if (preempted_any(*plan)) return;
  schedule_swapped(plan);
  if (may_admit()) schedule_waiting(&budget, plan);
}

// vLLM 0.6's default scheduler without chunked prefill (vllm/core/scheduler.py,
// _schedule_default; Vidur's vllm_replica_scheduler.py L68-131): unless a request is swapped
// out, waiting requests are admitted whole, first come first served, within the token budget
// and max_num_seqs; if any was, the iteration is theirs alone and the running decodes wait.
// Otherwise the running requests decode (preempting the newest when out of blocks) and, unless
// something was preempted, swapped requests come back.
void Scheduler::schedule_vllm_v0(StepPlan* plan) {
  uint64_t budget = limits_.max_num_batched_tokens;
  if (may_admit()) {
    schedule_waiting(&budget, plan);
    if (plan->has_work()) return;
  }
  budget = limits_.max_num_batched_tokens;
  schedule_running_in_order(&budget, plan);
  if (preempted_any(*plan)) return;
  schedule_swapped(plan);
}

// Sarathi-Serve's stall-free batching (Vidur's sarathi_replica_scheduler.py L86-186): every
// running decode gets its token first, whatever the budget (max_num_batched_tokens: the chunk
// size), and uses it up; then running requests with prompt left get chunks of what remains
// (in admission order; a chunk that finds no free blocks waits — only decodes preempt); then,
// unless something was preempted, swapped requests come back and waiting ones are admitted
// with chunks of the rest.
void Scheduler::schedule_sarathi(StepPlan* plan) {
  uint64_t budget = limits_.max_num_batched_tokens;
  for (size_t i = 0; i < running_.size(); ++i) {
    if (requests_->at(running_[i]).tokens_to_compute() != 1) continue;
    if (!schedule_running(i, 1, plan)) break;
    budget -= std::min<uint64_t>(budget, 1);
  }
  for (size_t i = 0; i < running_.size() && budget > 0; ++i) {
    const uint32_t slot = running_[i];
    SimRequest& request = requests_->at(slot);
    if (request.scheduled_tokens > 0 || request.tokens_to_compute() <= 1) continue;
    const uint64_t num_tokens = std::min(request.tokens_to_compute(), budget);
    if (!cache_->allocate_slots(request.id, num_tokens)) continue;
    add_chunk(slot, num_tokens, plan);
    budget -= num_tokens;
  }
  if (preempted_any(*plan)) return;
  schedule_swapped(plan);
  if (may_admit()) schedule_waiting(&budget, plan);
}

}  // namespace kvsim::sim
