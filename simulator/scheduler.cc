#include "simulator/scheduler.h"

#include <algorithm>

#include "simulator/request_hashes.h"

namespace kvsim::sim {

void StepPlan::clear() {
  chunks.clear();
  shape = BatchShape{};
  preempted.clear();
  swapped_out.clear();
  swapped_in.clear();
  dropped.clear();
  admitted.clear();
  recomputed_tokens = 0;
}

Scheduler::Scheduler(SchedulerLimits limits, KvCacheManager* cache, RequestTable* requests)
    : limits_(limits), cache_(cache), requests_(requests) {}

void Scheduler::add_waiting(uint32_t slot) {
  requests_->at(slot).phase = RequestPhase::kWaiting;
  waiting_.push_back(slot);
}

uint64_t Scheduler::attended(uint64_t computed) const {
  if (limits_.attention_window_tokens == 0) return computed;
  return std::min(computed, limits_.attention_sink_tokens + limits_.attention_window_tokens);
}

void Scheduler::add_chunk(uint32_t slot, uint64_t num_tokens, StepPlan* plan) {
  SimRequest& request = requests_->at(slot);
  request.scheduled_tokens = static_cast<uint32_t>(num_tokens);
  // Tokens below the high-water mark were computed before a recompute preemption lost them.
  const uint64_t end = request.computed + num_tokens;
  if (request.high_water > request.computed) {
    plan->recomputed_tokens += std::min(end, request.high_water) - request.computed;
  }
  request.high_water = std::max(request.high_water, end);
  plan->chunks.push_back({slot, static_cast<uint32_t>(num_tokens)});
  plan->shape.add(num_tokens, attended(request.computed), request.in_prefill() || num_tokens > 1);
}

void Scheduler::preempt(uint32_t slot, StepPlan* plan) {
  SimRequest& request = requests_->at(slot);
  ++request.preemptions;
  if (limits_.preemption == PreemptionMode::kSwap) {
    if (const auto bytes = cache_->swap_out(request.id)) {
      request.phase = RequestPhase::kSwappingOut;
      ++num_swapping_out_;
      plan->swapped_out.emplace_back(slot, *bytes);
      return;
    }
  }
  cache_->preempt(request.id);
  request.computed = 0;
  request.phase = RequestPhase::kWaiting;
  waiting_.push_front(slot);
  plan->preempted.push_back(slot);
}

bool Scheduler::schedule_running(size_t index, uint64_t* budget, StepPlan* plan) {
  const uint32_t slot = running_[index];
  SimRequest& request = requests_->at(slot);
  uint64_t num_tokens = request.tokens_to_compute();
  if (num_tokens > *budget) {
    if (!limits_.chunked_prefill) return true;  // waits for an iteration with room
    num_tokens = *budget;
  }
  while (!cache_->allocate_slots(request.id, num_tokens)) {
    const uint32_t victim = running_.back();
    if (victim == slot && running_.size() == 1 && num_swapping_in_ == 0) {
      // Alone on the device and still no room: it can never fit.
      running_.pop_back();
      cache_->free(request.id);
      plan->dropped.push_back(slot);
      return false;
    }
    running_.pop_back();
    preempt(victim, plan);
    if (victim == slot) return false;
  }
  add_chunk(slot, num_tokens, plan);
  *budget -= num_tokens;
  return true;
}

void Scheduler::schedule_swapped(StepPlan* plan) {
  while (!swapped_.empty() && has_seat()) {
    const uint32_t slot = swapped_.front();
    SimRequest& request = requests_->at(slot);
    const auto bytes = cache_->swap_in(request.id);
    if (!bytes) return;
    swapped_.pop_front();
    request.phase = RequestPhase::kSwappingIn;
    ++num_swapping_in_;
    plan->swapped_in.emplace_back(slot, *bytes);
  }
}

void Scheduler::schedule_waiting(uint64_t* budget, StepPlan* plan) {
  while (!waiting_.empty() && *budget > 0 && has_seat()) {
    const uint32_t slot = waiting_.front();
    SimRequest& request = requests_->at(slot);
    // Every admission needs at least one free block (a hit leaves at least one token to
    // compute); without one, skip the prefix lookup, whose cost grows with the prompt.
    if (cache_->num_free_blocks() == 0) return;
    PrefixHit hit;
    if (limits_.prefix_caching) hit = cache_->get_computed_blocks(request.id);
    const uint64_t needed = request.known_tokens() - hit.num_tokens;
    if (needed > *budget && !limits_.chunked_prefill) return;
    const uint64_t num_tokens = std::min(needed, *budget);
    // The request holds nothing, so it needs its new blocks and its free hit blocks free (the
    // test allocate_slots makes); checking first saves it a pass over the hit when it fails.
    const uint64_t block = cache_->block_size();
    const uint64_t new_blocks = (hit.num_tokens + num_tokens + block - 1) / block - hit.num_blocks;
    if (new_blocks + hit.num_free_blocks > cache_->num_free_blocks()) return;
    if (!cache_->allocate_slots(request.id, num_tokens, hit.num_blocks)) return;
    waiting_.pop_front();
    request.computed = hit.num_tokens;
    request.phase = RequestPhase::kRunning;
    if (!request.admitted) {
      request.admitted = true;
      request.cached_prompt_tokens = static_cast<uint32_t>(hit.num_tokens);
      request.high_water = hit.num_tokens;
      plan->admitted.push_back(slot);
    }
    running_.push_back(slot);
    add_chunk(slot, num_tokens, plan);
    *budget -= num_tokens;
  }
}

void Scheduler::schedule(StepPlan* plan) {
  plan->clear();
  uint64_t budget = limits_.max_num_batched_tokens;
  for (size_t i = 0; i < running_.size() && budget > 0; ++i) {
    if (!schedule_running(i, &budget, plan)) break;
  }
  if (!plan->preempted.empty() || !plan->swapped_out.empty() || !plan->dropped.empty()) return;
  schedule_swapped(plan);
  if (swapped_.empty() && num_swapping_out_ == 0) schedule_waiting(&budget, plan);
}

void Scheduler::append_decode_hashes(SimRequest& request) {
  const uint64_t block = cache_->block_size();
  if (request.computed < (uint64_t{request.num_hashes} + 1) * block) return;  // no new full block
  const uint64_t full_blocks = request.computed / block;
  const BlockHash seed = unique_block_seed(request.id);
  hash_scratch_.clear();
  for (uint64_t i = request.num_hashes; i < full_blocks; ++i) {
    hash_scratch_.push_back(unique_block_hash(seed, i));
  }
  cache_->append_block_hashes(request.id, hash_scratch_);
  request.num_hashes = static_cast<uint32_t>(full_blocks);
}

void Scheduler::complete(const StepPlan& plan, StepResult* result) {
  result->clear();
  for (const ScheduledChunk& chunk : plan.chunks) {
    SimRequest& request = requests_->at(chunk.slot);
    request.computed += chunk.num_tokens;
    request.scheduled_tokens = 0;
    if (limits_.prefix_caching) append_decode_hashes(request);
    if (request.computed < request.known_tokens()) continue;  // a prefill chunk, more to come
    ++request.generated;
    ++result->output_tokens;
    if (request.generated == 1) result->first_tokens.push_back(chunk.slot);
    if (request.generated == request.output_tokens) {
      cache_->free(request.id);
      result->finished.push_back(chunk.slot);
    }
  }
  if (result->finished.empty()) return;
  std::erase_if(running_, [this](uint32_t slot) {
    const SimRequest& request = requests_->at(slot);
    return request.generated == request.output_tokens;
  });
}

void Scheduler::swap_out_done(uint32_t slot) {
  KVSIM_CHECK(num_swapping_out_ > 0, "swap-out end without a swap-out in flight");
  --num_swapping_out_;
  requests_->at(slot).phase = RequestPhase::kSwapped;
  swapped_.push_back(slot);
}

void Scheduler::swap_in_done(uint32_t slot) {
  KVSIM_CHECK(num_swapping_in_ > 0, "swap-in end without a swap-in in flight");
  --num_swapping_in_;
  requests_->at(slot).phase = RequestPhase::kRunning;
  running_.push_back(slot);
}

int64_t Scheduler::drop_head() {
  std::deque<uint32_t>& queue = !swapped_.empty() ? swapped_ : waiting_;
  if (queue.empty()) return -1;
  const uint32_t slot = queue.front();
  queue.pop_front();
  cache_->free(requests_->at(slot).id);
  return slot;
}

}  // namespace kvsim::sim
