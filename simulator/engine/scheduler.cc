#include "simulator/engine/scheduler.h"

#include <algorithm>
#include <string>

#include "core/base/checked_math.h"
#include "simulator/engine/request_hashes.h"

namespace kvsim::sim {

void StepPlan::clear() {
  chunks.clear();
  shape = BatchShape{};
  preempted.clear();
  swapped_out.clear();
  swapped_in.clear();
  dropped.clear();
  recomputed_tokens = 0;
  external.clear();
  draft_shape = BatchShape{};
  verify_tokens = 0;
}

Scheduler::Scheduler(SchedulerLimits limits, KvCacheCoordinator* cache, RequestTable* requests)
    : limits_(limits), cache_(cache), requests_(requests), acceptance_(limits.speculative) {}

void Scheduler::add_waiting(uint32_t slot) {
  SimRequest& request = requests_->at(slot);
  request.phase = RequestPhase::kWaiting;
  outstanding_tokens_ += remaining_tokens(request);
  waiting_.push_back(slot);
}

uint64_t Scheduler::remaining_tokens(const SimRequest& request) const {
  const uint64_t prompt = request.prompt_tokens;
  const uint64_t outputs =
      limits_.role == EngineRole::kPrefill ? 1 : uint64_t{request.output_tokens};
  return prompt - std::min<uint64_t>(request.prompt_done, prompt) + outputs -
         std::min<uint64_t>(request.generated, outputs);
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
  const bool sampled = end >= request.known_tokens();
  if (request.drafts > 0) plan->verify_tokens += num_tokens;
  plan->shape.add(num_tokens, attended(request.computed), request.in_prefill() || num_tokens > 1,
                  sampled ? uint64_t{1} + request.drafts : 0);
  if (limits_.speculative.runs_draft_model()) {
    plan->draft_shape.add(1, attended(end), /*prefill=*/false, /*sampled_rows=*/1);
  }
}

void Scheduler::preempt(uint32_t slot, StepPlan* plan) {
  SimRequest& request = requests_->at(slot);
  ++request.preemptions;
  request.drafts = 0;
  if (limits_.preemption == PreemptionMode::kSwap) {
    if (const auto bytes = cache_->swap_out(request.id)) {
      request.phase = RequestPhase::kSwappingOut;
      ++num_swapping_out_;
      plan->swapped_out.push_back({slot, *bytes});
      return;
    }
  }
  cache_->preempt(request.id);
  request.computed = 0;
  request.phase = RequestPhase::kWaiting;
  waiting_.push_front(slot);
  plan->preempted.push_back(slot);
}

bool Scheduler::schedule_running(size_t index, uint64_t num_tokens, StepPlan* plan) {
  const uint32_t slot = running_[index];
  SimRequest& request = requests_->at(slot);
  while (!cache_->allocate_slots(request.id, num_tokens, PrefixHit{},
                                 limits_.speculative.lookahead_tokens())) {
    const uint32_t victim = running_.back();
    // Blocks held by requests in transit (swapping in, waiting for a connector's KV, sending
    // KV) come back or are freed when the transfer ends: not alone then.
    const size_t holding = num_swapping_in_ + num_waiting_for_kv_ + num_sending_;
    if (victim == slot && running_.size() == 1 && holding == 0) {
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
  return true;
}

void Scheduler::schedule_running_in_order(uint64_t* budget, StepPlan* plan) {
  for (size_t i = 0; i < running_.size() && *budget > 0; ++i) {
    SimRequest& request = requests_->at(running_[i]);
    if (request.drafts > 0 && request.tokens_to_compute() > *budget) {
      request.drafts = static_cast<uint16_t>(std::min<uint64_t>(request.drafts, *budget - 1));
    }
    uint64_t num_tokens = request.tokens_to_compute();
    if (num_tokens > *budget) {
      if (!limits_.chunked_prefill) continue;  // waits for an iteration with room
      num_tokens = *budget;
    }
    if (!schedule_running(i, num_tokens, plan)) break;
    *budget -= num_tokens;
  }
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
    plan->swapped_in.push_back({slot, *bytes});
  }
}

void Scheduler::mark_admitted(SimRequest& request, uint64_t hit_tokens) {
  request.admitted = true;
  request.cached_prompt_tokens = static_cast<uint32_t>(hit_tokens);
  request.high_water = hit_tokens;
  request.prompt_done =
      static_cast<uint32_t>(std::min<uint64_t>(hit_tokens, request.prompt_tokens));
  outstanding_tokens_ -= request.prompt_done;
}

// The head with KV from connector c: blocks for the hit and for the connector's tokens now,
// the rest of the request once that KV is in, as a running request.
bool Scheduler::admit_external(uint32_t slot, uint32_t c, ExternalKv kv, StepPlan* plan) {
  SimRequest& request = requests_->at(slot);
  const uint64_t block = cache_->block_size();
  const uint64_t cached = hit_.num_tokens + kv.num_tokens;
  const uint64_t new_blocks = cache_->new_blocks_to_admit(hit_.num_blocks(), kv.num_tokens);
  if (new_blocks + hit_.num_free_blocks > cache_->num_free_blocks()) return false;
  connectors_[c]->on_admit(cache_->block_hashes(request.id), hit_, kv);
  const bool allocated = cache_->allocate_slots(request.id, kv.num_tokens, hit_).has_value();
  KVSIM_CHECK(allocated, "allocate_slots failed after an exact room check (external KV)");
  waiting_.pop_front();
  request.computed = cached;
  request.phase = RequestPhase::kWaitingForKv;
  ++num_waiting_for_kv_;
  if (!request.admitted) {
    mark_admitted(request, cached);
    for (int t = 0; t < kMaxLowerTiers; ++t) {
      request.lower_hit_tokens[t] = static_cast<uint32_t>(kv.blocks_per_tier[t] * block);
    }
  }
  kv.num_new_blocks = static_cast<uint32_t>(new_blocks);
  plan->external.push_back({slot, c, kv});
  return true;
}

Scheduler::Admission Scheduler::admit_through_connectors(uint32_t slot, StepPlan* plan) {
  const SimRequest& request = requests_->at(slot);
  for (uint32_t c = 0; c < connectors_.size(); ++c) {
    const KvMatch match = connectors_[c]->match(request, cache_->block_hashes(request.id), hit_,
                                                cache_->num_free_blocks());
    if (match.blocked) return Admission::kBlocked;
    if (!match.external) continue;
    return admit_external(slot, c, *match.external, plan) ? Admission::kAdmitted
                                                          : Admission::kBlocked;
  }
  return Admission::kNone;
}

// The tokens an admission must find room for: all `needed` when the whole prompt must fit
// (without an attention window), else the chunk it computes now.
uint64_t Scheduler::admission_tokens(uint64_t needed, uint64_t chunk) const {
  const bool whole = limits_.reserve_full_prompt && limits_.attention_window_tokens == 0;
  return whole ? needed : chunk;
}

// False when the waiting request could not be admitted with budget tokens even if its whole
// known prefix hit: its new blocks only fall as the hit grows (and free hit blocks only add),
// so the prefix lookup, whose cost grows with the prompt and the KV cache groups, is skipped.
bool Scheduler::fits_with_longest_hit(const SimRequest& request, uint64_t budget) const {
  const uint64_t hit_blocks = limits_.prefix_caching ? cache_->max_hit_blocks(request.id) : 0;
  const uint64_t needed = request.known_tokens() - hit_blocks * cache_->block_size();
  if (needed > budget && !limits_.chunked_prefill) return false;
  const uint64_t reserved = admission_tokens(needed, std::min(needed, budget));
  return cache_->new_blocks_to_admit(hit_blocks, reserved) + limits_.watermark_blocks <=
         cache_->num_free_blocks();
}

void Scheduler::schedule_waiting(uint64_t* budget, StepPlan* plan) {
  // Admissions with KV from a connector compute nothing now, so they need no token budget.
  while (!waiting_.empty() && (*budget > 0 || budget_free_admissions_) && has_seat()) {
    const uint32_t slot = waiting_.front();
    SimRequest& request = requests_->at(slot);
    // Every admission needs at least one free block per KV cache group (a hit leaves at least
    // one token to compute); without them, skip the prefix lookup, whose cost grows with the
    // prompt.
    if (cache_->num_free_blocks() < cache_->min_blocks_to_admit()) return;
    if (connectors_.empty() && !fits_with_longest_hit(request, *budget)) return;
    hit_.clear();
    if (limits_.prefix_caching) cache_->get_computed_blocks(request.id, &hit_);
    const Admission admission = admit_through_connectors(slot, plan);
    if (admission == Admission::kBlocked) return;
    if (admission == Admission::kAdmitted) continue;
    if (*budget == 0) return;
    const uint64_t needed = request.known_tokens() - hit_.num_tokens;
    if (needed > *budget && !limits_.chunked_prefill) return;
    const uint64_t num_tokens = std::min(needed, *budget);
    // The request holds nothing, so it needs its new blocks and its free hit blocks free (the
    // test allocate_slots makes; checking first saves it a pass over the hit when it fails),
    // for all its tokens when the whole prompt must fit, and the watermark left over. With an
    // attention window the sequence never holds its whole prompt: the chunk is checked.
    const uint64_t reserved = admission_tokens(needed, num_tokens);
    if (cache_->blocks_to_admit(hit_, reserved) + limits_.watermark_blocks >
        cache_->num_free_blocks()) {
      return;
    }
    if (!cache_->allocate_slots(request.id, num_tokens, hit_)) return;
    waiting_.pop_front();
    request.computed = hit_.num_tokens;
    request.phase = RequestPhase::kRunning;
    if (!request.admitted) mark_admitted(request, hit_.num_tokens);
    running_.push_back(slot);
    add_chunk(slot, num_tokens, plan);
    *budget -= num_tokens;
  }
}

void Scheduler::schedule(StepPlan* plan) {
  plan->clear();
  plan->shape.window_tokens = limits_.cost_window_tokens;  // before any add_chunk
  switch (limits_.policy) {
    case SchedulerPolicy::kVllm:
      schedule_vllm(plan);
      return;
    case SchedulerPolicy::kVllmV0:
      schedule_vllm_v0(plan);
      return;
    case SchedulerPolicy::kSarathi:
      schedule_sarathi(plan);
      return;
  }
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

uint32_t Scheduler::sample(SimRequest& request, StepResult* result) {
  uint32_t sampled = 1;
  if (request.drafts > 0) {
    const uint32_t accepted = acceptance_.accepted(request.drafts, request.acceptance);
    const uint32_t rejected = request.drafts - accepted;
    request.computed -= rejected;
    request.high_water -= rejected;  // the step set it to its end: the rejected were never kept
    if (rejected > 0) cache_->rewind(request.id, rejected);
    result->draft_tokens += request.drafts;
    result->accepted_draft_tokens += accepted;
    ++result->verify_steps;
    sampled += accepted;
    request.drafts = 0;
  }
  request.generated += sampled;
  result->output_tokens += sampled;
  outstanding_tokens_ -= sampled;  // a prefill-only instance samples only the first
  const uint32_t left = request.output_tokens - request.generated;
  if (limits_.speculative.enabled() && left > 1 && limits_.role != EngineRole::kPrefill) {
    request.drafts =
        static_cast<uint16_t>(std::min(limits_.speculative.num_speculative_tokens, left - 1));
  }
  return sampled;
}

void Scheduler::complete(const StepPlan& plan, StepResult* result) {
  result->clear();
  for (const ScheduledChunk& chunk : plan.chunks) {
    SimRequest& request = requests_->at(chunk.slot);
    request.computed += chunk.num_tokens;
    request.scheduled_tokens = 0;
    if (request.computed > request.prompt_done && request.prompt_done < request.prompt_tokens) {
      const auto done =
          static_cast<uint32_t>(std::min<uint64_t>(request.computed, request.prompt_tokens));
      outstanding_tokens_ -= done - request.prompt_done;
      request.prompt_done = done;
    }
    if (request.computed < request.known_tokens()) {  // a prefill chunk, more to come
      if (limits_.prefix_caching) append_decode_hashes(request);
      continue;
    }
    const uint32_t sampled = sample(request, result);
    if (limits_.prefix_caching) append_decode_hashes(request);
    if (request.generated == sampled) result->first_tokens.push_back(chunk.slot);
    if (request.generated == request.output_tokens) {
      cache_->free(request.id);
      result->finished.push_back(chunk.slot);
    } else if (limits_.role == EngineRole::kPrefill) {
      request.phase = RequestPhase::kSending;
      ++num_sending_;
      result->prefilled.push_back(chunk.slot);
    }
  }
  if (result->finished.empty() && result->prefilled.empty()) return;
  std::erase_if(running_, [this](uint32_t slot) {
    const SimRequest& request = requests_->at(slot);
    return request.generated == request.output_tokens || request.phase == RequestPhase::kSending;
  });
}

void Scheduler::swap_out_done(uint32_t slot) {
  KVSIM_CHECK(num_swapping_out_ > 0, "swap-out end without a swap-out in flight");
  --num_swapping_out_;
  requests_->at(slot).phase = RequestPhase::kSwapped;
  swapped_.push_back(slot);
}

SimRequest& Scheduler::resume(uint32_t slot, size_t* in_flight, const char* what) {
  KVSIM_CHECK(*in_flight > 0, std::string(what) + " end without one in flight");
  --*in_flight;
  SimRequest& request = requests_->at(slot);
  request.phase = RequestPhase::kRunning;
  running_.push_back(slot);
  return request;
}

void Scheduler::swap_in_done(uint32_t slot) { resume(slot, &num_swapping_in_, "swap-in"); }

void Scheduler::kv_arrived(uint32_t slot) { resume(slot, &num_waiting_for_kv_, "external KV"); }

void Scheduler::sent_done(uint32_t slot) {
  KVSIM_CHECK(num_sending_ > 0, "send end without a send in flight");
  --num_sending_;
  cache_->free(requests_->at(slot).id);
}

void Scheduler::forget(uint32_t slot) {
  outstanding_tokens_ -= remaining_tokens(requests_->at(slot));
}

std::optional<uint32_t> Scheduler::drop_head() {
  std::deque<uint32_t>& queue = !swapped_.empty() ? swapped_ : waiting_;
  if (queue.empty()) return std::nullopt;
  const uint32_t slot = queue.front();
  queue.pop_front();
  cache_->free(requests_->at(slot).id);
  return slot;
}

}  // namespace kvsim::sim
