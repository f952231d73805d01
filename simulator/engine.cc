#include "simulator/engine.h"

#include <algorithm>
#include <cmath>

#include "simulator/request_hashes.h"

namespace kvsim::sim {
namespace {

uint64_t ceil_div_u64(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

StatusOr<std::unique_ptr<Engine>> Engine::create(const EngineConfig& config,
                                                 std::unique_ptr<CostModel> cost_model,
                                                 std::unique_ptr<RequestSource> source) {
  KVSIM_CHECK(cost_model != nullptr && source != nullptr, "engine needs a cost model and a source");
  if (config.scheduler.preemption == PreemptionMode::kSwap && !(config.host_link_bytes_per_s > 0)) {
    return Status::invalid_argument(
        "swap preemption needs the device's host_link_gbps (the link swaps travel over)");
  }
  KVSIM_ASSIGN_OR_RETURN(KvCacheManager cache, KvCacheManager::create(config.cache));
  return std::unique_ptr<Engine>(
      new Engine(config, std::move(cache), std::move(cost_model), std::move(source)));
}

Engine::Engine(const EngineConfig& config, KvCacheManager cache,
               std::unique_ptr<CostModel> cost_model, std::unique_ptr<RequestSource> source)
    : config_(config),
      cache_(std::move(cache)),
      cost_model_(std::move(cost_model)),
      source_(std::move(source)),
      scheduler_(config.scheduler, &cache_, &requests_) {}

EngineSnapshot Engine::snapshot() const {
  EngineSnapshot s;
  s.time_ns = events_.now_ns();
  const BlockPool& pool = cache_.pool();
  s.kv_blocks_used = pool.num_used_blocks();
  s.kv_blocks_cached_free = pool.num_cached_free_blocks();
  s.kv_blocks_free = pool.num_free_blocks() - pool.num_cached_free_blocks();
  s.running = static_cast<uint32_t>(scheduler_.num_running());
  s.waiting = static_cast<uint32_t>(scheduler_.num_waiting());
  s.swapped = static_cast<uint32_t>(scheduler_.num_swapped());
  s.in_system = in_system_;
  return s;
}

Status Engine::pull_next_arrival() {
  KVSIM_ASSIGN_OR_RETURN(has_next_, source_->next(&next_));
  if (has_next_) events_.push(std::max(next_.arrival_ns, events_.now_ns()), EventKind::kArrival);
  return Status::ok();
}

void Engine::advance_clock(int64_t time_ns) {
  const auto dt = static_cast<long double>(time_ns - clock_ns_);
  stats_.kv_used_block_ns += dt * cache_.pool().num_used_blocks();
  stats_.in_system_ns += dt * static_cast<long double>(in_system_);
  clock_ns_ = time_ns;
}

Status Engine::run() {
  KVSIM_RETURN_IF_ERROR(pull_next_arrival());
  while (!events_.empty()) {
    const int64_t now = events_.top().time_ns;
    advance_clock(now);
    while (!events_.empty() && events_.top().time_ns == now) {
      handle(events_.pop());
      KVSIM_RETURN_IF_ERROR(source_status_);
    }
    if (!busy_) try_start_iteration();
    if (stats_.events >= next_progress_events_) {
      next_progress_events_ = stats_.events + config_.progress_every_events;
      if (progress_) report_progress();
      if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) {
        return Status::cancelled("simulation cancelled at " + std::to_string(stats_.events) +
                                 " events");
      }
    }
  }
  KVSIM_CHECK(scheduler_.idle(), "the event queue ran dry with requests left");
  stats_.last_event_ns = events_.now_ns();
  const EngineSnapshot last = snapshot();
  Status status;
  for (SimObserver* observer : observers_) {
    const Status finished = observer->finish(last);
    if (status.is_ok()) status = finished;
  }
  if (progress_) report_progress();
  return status;
}

void Engine::handle(const Event& event) {
  ++stats_.events;
  switch (event.kind) {
    case EventKind::kArrival:
      handle_arrival();
      break;
    case EventKind::kIterationEnd:
      handle_iteration_end();
      break;
    case EventKind::kSwapEnd:
      handle_swap_end(static_cast<uint32_t>(event.payload));
      break;
  }
}

uint64_t Engine::peak_blocks_needed(const RequestSpec& spec) const {
  const uint64_t block = config_.cache.block_size;
  const uint64_t full = ceil_div_u64(uint64_t{spec.prompt_tokens} + spec.output_tokens - 1, block);
  const SchedulerLimits& limits = config_.scheduler;
  if (limits.attention_window_tokens == 0) return full;
  const uint64_t chunk = limits.chunked_prefill
                             ? std::min<uint64_t>(spec.prompt_tokens, limits.max_num_batched_tokens)
                             : spec.prompt_tokens;
  const uint64_t bounded = ceil_div_u64(limits.attention_sink_tokens, block) +
                           ceil_div_u64(limits.attention_window_tokens + chunk, block) + 2;
  return std::min(full, bounded);
}

bool Engine::drop_at_arrival(const RequestSpec& spec) {
  DropReason reason;
  if (config_.max_model_len > 0 &&
      uint64_t{spec.prompt_tokens} + spec.output_tokens > config_.max_model_len) {
    reason = DropReason::kTooLong;
  } else if (!config_.scheduler.chunked_prefill &&
             spec.prompt_tokens > config_.scheduler.max_num_batched_tokens) {
    reason = DropReason::kBudget;
  } else if (peak_blocks_needed(spec) > config_.cache.num_blocks) {
    reason = DropReason::kTooLarge;
  } else {
    return false;
  }
  ++stats_.dropped[static_cast<int>(reason)];
  RequestRecord record;
  record.id = spec.id;
  record.arrival_ns = spec.arrival_ns;
  record.prompt_tokens = spec.prompt_tokens;
  record.output_tokens = spec.output_tokens;
  for (SimObserver* observer : observers_) observer->on_request_dropped(record, reason);
  return true;
}

void Engine::handle_arrival() {
  ++stats_.arrivals;
  if (!drop_at_arrival(next_)) {
    SimRequest request;
    request.id = next_.id;
    request.prompt_tokens = next_.prompt_tokens;
    request.output_tokens = next_.output_tokens;
    request.arrival_ns = events_.now_ns();
    if (config_.scheduler.prefix_caching) {
      prompt_block_hashes(next_, config_.cache.block_size, &hashes_);
    } else {
      hashes_.clear();
    }
    request.num_hashes = static_cast<uint32_t>(hashes_.size());
    cache_.add_request(request.id, request.prompt_tokens, hashes_);
    request.phase = RequestPhase::kWaiting;
    scheduler_.add_waiting(requests_.add(request));
    ++in_system_;
  }
  source_status_ = pull_next_arrival();
}

RequestRecord Engine::record_of(const SimRequest& request) const {
  RequestRecord record;
  record.id = request.id;
  record.arrival_ns = request.arrival_ns;
  record.first_scheduled_ns = request.first_scheduled_ns;
  record.first_token_ns = request.first_token_ns;
  record.finish_ns = events_.now_ns();
  record.prompt_tokens = request.prompt_tokens;
  record.output_tokens = request.output_tokens;
  record.cached_prompt_tokens = request.cached_prompt_tokens;
  record.preemptions = request.preemptions;
  return record;
}

void Engine::handle_iteration_end() {
  busy_ = false;
  scheduler_.complete(plan_, &result_);
  const int64_t now = events_.now_ns();
  for (uint32_t slot : result_.first_tokens) requests_.at(slot).first_token_ns = now;
  stats_.output_tokens += result_.output_tokens;
  for (uint32_t slot : result_.finished) {
    const RequestRecord record = record_of(requests_.at(slot));
    for (SimObserver* observer : observers_) observer->on_request_finished(record);
    requests_.release(slot);
    ++stats_.completed;
    --in_system_;
  }
  iteration_.output_tokens = result_.output_tokens;
  const EngineSnapshot after = snapshot();
  for (SimObserver* observer : observers_) observer->on_iteration(iteration_, after);
}

void Engine::handle_swap_end(uint32_t slot) {
  if (requests_.at(slot).phase == RequestPhase::kSwappingOut) {
    scheduler_.swap_out_done(slot);
  } else {
    scheduler_.swap_in_done(slot);
  }
}

void Engine::record_drop(uint32_t slot, DropReason reason) {
  ++stats_.dropped[static_cast<int>(reason)];
  RequestRecord record = record_of(requests_.at(slot));
  record.finish_ns = -1;
  for (SimObserver* observer : observers_) observer->on_request_dropped(record, reason);
  requests_.release(slot);
  --in_system_;
}

// Starts the plan's swap transfers; returns when the last swap-out ends (or now).
int64_t Engine::start_transfers() {
  const int64_t now = events_.now_ns();
  int64_t stall_until = now;
  const auto transfer = [&](uint32_t slot, uint64_t bytes, bool to_host) {
    int64_t& link_free = to_host ? to_host_free_ns_ : to_device_free_ns_;
    const int64_t start = std::max(now, link_free);
    const auto ns = static_cast<int64_t>(
        std::ceil(static_cast<double>(bytes) / config_.host_link_bytes_per_s * 1e9));
    link_free = start + ns;
    events_.push(link_free, EventKind::kSwapEnd, slot);
    (to_host ? stats_.swap_out_bytes : stats_.swap_in_bytes) += bytes;
    const TransferRecord record{requests_.at(slot).id, to_host, start, link_free, bytes};
    for (SimObserver* observer : observers_) observer->on_transfer(record);
    return link_free;
  };
  for (const auto& [slot, bytes] : plan_.swapped_out) {
    stall_until = std::max(stall_until, transfer(slot, bytes, true));
  }
  for (const auto& [slot, bytes] : plan_.swapped_in) transfer(slot, bytes, false);
  stats_.preemptions_swap += plan_.swapped_out.size();
  stats_.preemptions_recompute += plan_.preempted.size();
  return stall_until;
}

void Engine::start_batch(int64_t start_ns) {
  const int64_t duration = cost_model_->iteration_ns(plan_.shape);
  KVSIM_CHECK(duration > 0, "a cost model returned a non-positive iteration time");
  iteration_ = IterationRecord{};
  iteration_.index = stats_.iterations++;
  iteration_.decided_ns = events_.now_ns();
  iteration_.start_ns = start_ns;
  iteration_.end_ns = start_ns + duration;
  iteration_.shape = plan_.shape;
  for (uint32_t slot : plan_.admitted) requests_.at(slot).first_scheduled_ns = start_ns;
  stats_.prefill_tokens += plan_.shape.prefill_tokens;
  stats_.decode_tokens += plan_.shape.decode_tokens;
  stats_.recomputed_tokens += plan_.recomputed_tokens;
  stats_.busy_ns += duration;
  stats_.kv_blocks_peak = std::max(stats_.kv_blocks_peak, cache_.pool().num_used_blocks());
  events_.push(iteration_.end_ns, EventKind::kIterationEnd, iteration_.index);
  busy_ = true;
}

void Engine::try_start_iteration() {
  for (;;) {
    scheduler_.schedule(&plan_);
    for (uint32_t slot : plan_.dropped) record_drop(slot, DropReason::kNeverFits);
    const int64_t start = start_transfers();
    stats_.kv_blocks_peak = std::max(stats_.kv_blocks_peak, cache_.pool().num_used_blocks());
    if (plan_.has_work()) {
      start_batch(start);
      return;
    }
    if (scheduler_.num_swapping() > 0 || scheduler_.idle()) return;
    if (!plan_.dropped.empty() || !plan_.preempted.empty()) continue;
    // Nothing runs, nothing moves, yet requests wait: the head can never be scheduled.
    const int64_t slot = scheduler_.drop_head();
    KVSIM_CHECK(slot >= 0, "stuck scheduler with empty queues");
    record_drop(static_cast<uint32_t>(slot), DropReason::kNeverFits);
  }
}

void Engine::report_progress() {
  Progress p;
  p.sim_time_ns = events_.now_ns();
  p.arrivals = stats_.arrivals;
  p.completed = stats_.completed;
  p.dropped = stats_.dropped_total();
  p.events = stats_.events;
  const auto expected = source_->expected_count();
  const double done = static_cast<double>(p.completed + p.dropped);
  if (expected && *expected > 0) {
    p.fraction = done / static_cast<double>(*expected);
  } else {
    // Arrivals track the file read; finished requests lag them by what is in flight.
    const double arrived = std::max(1.0, static_cast<double>(p.arrivals));
    p.fraction = source_->fraction_consumed() * done / arrived;
  }
  p.fraction = std::clamp(p.fraction, 0.0, 1.0);
  progress_(p);
}

}  // namespace kvsim::sim
