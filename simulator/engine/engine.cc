#include "simulator/engine/engine.h"

#include <algorithm>
#include <cmath>

#include "core/base/checked_math.h"
#include "core/base/units.h"
#include "simulator/engine/request_hashes.h"

namespace kvsim::sim {

namespace {

// What both constructors check and build: the swap link, and the KV cache of the config.
StatusOr<KvCacheCoordinator> engine_cache(const EngineConfig& config) {
  if (config.scheduler.preemption == PreemptionMode::kSwap && !(config.host_link_bytes_per_s > 0)) {
    return Status::invalid_argument(
        "swap preemption needs the device's host_link_gbps (the link swaps travel over)");
  }
  return KvCacheCoordinator::create(config.cache, config.cache_groups);
}

}  // namespace

StatusOr<std::unique_ptr<Engine>> Engine::create(const EngineConfig& config,
                                                 std::unique_ptr<CostModel> cost_model,
                                                 std::unique_ptr<RequestSource> source) {
  KVSIM_CHECK(cost_model != nullptr && source != nullptr, "engine needs a cost model and a source");
  KVSIM_ASSIGN_OR_RETURN(KvCacheCoordinator cache, engine_cache(config));
  return std::unique_ptr<Engine>(
      new Engine(config, std::move(cache), std::move(cost_model), std::move(source), nullptr));
}

StatusOr<std::unique_ptr<Engine>> Engine::create_replica(const EngineConfig& config,
                                                         std::unique_ptr<CostModel> cost_model,
                                                         EventQueue* events) {
  KVSIM_CHECK(cost_model != nullptr && events != nullptr,
              "a replica needs a cost model and a queue");
  KVSIM_ASSIGN_OR_RETURN(KvCacheCoordinator cache, engine_cache(config));
  return std::unique_ptr<Engine>(
      new Engine(config, std::move(cache), std::move(cost_model), nullptr, events));
}

Engine::Engine(const EngineConfig& config, KvCacheCoordinator cache,
               std::unique_ptr<CostModel> cost_model, std::unique_ptr<RequestSource> source,
               EventQueue* events)
    : config_(config),
      cache_(std::move(cache)),
      cost_model_(std::move(cost_model)),
      scheduler_(config.scheduler, &cache_, &requests_),
      events_(events != nullptr ? events : &own_events_) {
  if (source == nullptr) return;
  feed_ = std::make_unique<ArrivalFeed>(std::move(source), config.replica);
  if (feed_->limits_in_flight()) add_observer(feed_.get());
}

EngineSnapshot Engine::snapshot() const {
  EngineSnapshot s;
  s.time_ns = events_->now_ns();
  const BlockPool& pool = cache_.pool();
  s.kv_blocks_used = pool.num_used_blocks();
  s.kv_blocks_cached_free = pool.num_cached_free_blocks();
  s.kv_blocks_free = pool.num_free_blocks() - pool.num_cached_free_blocks();
  s.running = static_cast<uint32_t>(scheduler_.num_running());
  s.waiting = static_cast<uint32_t>(scheduler_.num_waiting() + held_.size());
  s.swapped = static_cast<uint32_t>(scheduler_.num_swapped());
  s.in_system = in_system_;
  return s;
}

void Engine::advance_clock(int64_t time_ns) {
  const auto dt = static_cast<ExactSum>(time_ns - clock_ns_);
  stats_.kv_used_block_ns += dt * cache_.pool().num_used_blocks();
  stats_.in_system_ns += dt * in_system_;
  clock_ns_ = time_ns;
}

Status stop_status(const std::atomic<bool>* stop, uint64_t events) {
  if (stop == nullptr || !stop->load(std::memory_order_relaxed)) return Status();
  return Status::cancelled("simulation cancelled at " + std::to_string(events) + " events");
}

const Status& Engine::input_status() const {
  static const Status kOk;
  return feed_ != nullptr ? feed_->status() : kOk;
}

Status Engine::run() {
  KVSIM_CHECK(feed_ != nullptr, "run() of a cluster's replica (the cluster runs it)");
  KVSIM_RETURN_IF_ERROR(feed_->start(events_));
  KVSIM_RETURN_IF_ERROR(run_event_loop(*events_, *this, config_.progress_every_events, stop_));
  mark_end(events_->now_ns());
  const Status status = finish_observers(observers_, snapshot());
  report_progress();
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
    case EventKind::kLoadEnd:
      handle_load_end(static_cast<uint32_t>(event.payload));
      break;
    case EventKind::kKvTransferEnd:
      KVSIM_CHECK(false, "a KV transfer event went to an engine (the cluster handles them)");
  }
}

// Blocks at the request's peak here: P + O - 1 tokens, or P on a prefill-only instance (it
// hands the request on after the first token); bounded by a sink + window policy; a hybrid
// model's sum over its KV cache groups (core/model/kv_groups.h step 5).
uint64_t Engine::peak_blocks_needed(uint32_t prompt_tokens, uint32_t output_tokens) const {
  const uint64_t block = config_.cache.block_size;
  const SchedulerLimits& limits = config_.scheduler;
  const uint64_t peak_tokens = limits.role == EngineRole::kPrefill
                                   ? uint64_t{prompt_tokens}
                                   : uint64_t{prompt_tokens} + output_tokens - 1;
  const uint64_t chunk = limits.chunked_prefill
                             ? std::min<uint64_t>(prompt_tokens, limits.max_num_batched_tokens)
                             : prompt_tokens;
  if (!config_.cache_groups.empty()) return cache_.peak_blocks(peak_tokens, chunk);
  const uint64_t full = ceil_div(peak_tokens, block);
  if (limits.attention_window_tokens == 0) return full;
  const uint64_t bounded = ceil_div(limits.attention_sink_tokens, block) +
                           ceil_div(limits.attention_window_tokens + chunk, block) + 2;
  return std::min(full, bounded);
}

std::optional<DropReason> Engine::arrival_drop_reason(uint32_t prompt_tokens,
                                                      uint32_t output_tokens) const {
  if (config_.max_model_len > 0 &&
      uint64_t{prompt_tokens} + output_tokens > config_.max_model_len) {
    return DropReason::kTooLong;
  }
  if (!config_.scheduler.chunked_prefill && config_.scheduler.role != EngineRole::kDecode &&
      prompt_tokens > config_.scheduler.max_num_batched_tokens) {
    return DropReason::kBudget;
  }
  if (peak_blocks_needed(prompt_tokens, output_tokens) > config_.cache.num_usable_blocks()) {
    return DropReason::kTooLarge;
  }
  return std::nullopt;
}

void Engine::drop_before_admission(RequestRecord record, DropReason reason) {
  ++stats_.dropped[static_cast<int>(reason)];
  record.replica = static_cast<int32_t>(config_.replica);
  for (SimObserver* observer : observers_) observer->on_request_dropped(record, reason);
}

bool Engine::admit(const RequestSpec& spec, const std::vector<BlockHash>* hashes) {
  ++stats_.arrivals;
  if (const auto reason = arrival_drop_reason(spec.prompt_tokens, spec.output_tokens)) {
    RequestRecord record;
    record.id = spec.id;
    record.arrival_ns = spec.arrival_ns;
    record.prompt_tokens = spec.prompt_tokens;
    record.output_tokens = spec.output_tokens;
    drop_before_admission(record, *reason);
    return false;
  }
  SimRequest request;
  request.id = spec.id;
  request.prompt_tokens = spec.prompt_tokens;
  request.output_tokens = spec.output_tokens;
  if (spec.acceptance) request.acceptance = static_cast<float>(*spec.acceptance);
  request.arrival_ns = events_->now_ns();
  if (!config_.scheduler.prefix_caching) {
    hashes_.clear();
  } else if (hashes != nullptr) {
    hashes_ = *hashes;
  } else {
    prompt_block_hashes(spec, config_.cache.block_size, &hashes_);
  }
  request.num_hashes = static_cast<uint32_t>(hashes_.size());
  cache_.add_request(request.id, request.prompt_tokens, hashes_,
                     uint64_t{request.prompt_tokens} + request.output_tokens);
  request.phase = RequestPhase::kWaiting;
  const uint32_t slot = requests_.add(request);
  if (config_.async_scheduling && busy_) {
    held_.push_back(slot);
  } else {
    scheduler_.add_waiting(slot);
  }
  ++in_system_;
  return true;
}

void Engine::handle_arrival() {
  admit(feed_->current());
  feed_->advance(events_);
}

RequestRecord Engine::record_of(const SimRequest& request) const {
  RequestRecord record;
  record.id = request.id;
  record.arrival_ns = request.arrival_ns;
  record.first_scheduled_ns = request.first_scheduled_ns;
  record.first_token_ns = request.first_token_ns;
  record.finish_ns = events_->now_ns();
  record.prompt_tokens = request.prompt_tokens;
  record.output_tokens = request.output_tokens;
  record.cached_prompt_tokens = request.cached_prompt_tokens;
  record.preemptions = request.preemptions;
  record.replica = static_cast<int32_t>(config_.replica);
  record.frontend_ns = config_.frontend_ns;
  record.prefill_replica =
      request.prefill_replica ? static_cast<int32_t>(*request.prefill_replica) : record.replica;
  record.prefilled_ns = request.prefilled_ns;
  record.kv_arrived_ns = request.kv_arrived_ns;
  for (int t = 0; t < kMaxLowerTiers; ++t) record.lower_hit_tokens[t] = request.lower_hit_tokens[t];
  return record;
}

void Engine::notify_prefill_ends() {
  for (const ScheduledChunk& chunk : plan_.chunks) {
    const SimRequest& request = requests_.at(chunk.slot);
    if (!request.ends_prefill(chunk.num_tokens)) continue;
    for (KvConnector* connector : scheduler_.connectors()) {
      connector->on_prefill_done(request, cache_.block_hashes(request.id), *this);
    }
  }
}

void Engine::handle_iteration_end() {
  busy_ = false;
  if (!scheduler_.connectors().empty()) notify_prefill_ends();
  scheduler_.complete(plan_, &result_);
  const int64_t now = events_->now_ns();
  for (uint32_t slot : result_.first_tokens) requests_.at(slot).first_token_ns = now;
  stats_.output_tokens += result_.output_tokens;
  stats_.draft_tokens += result_.draft_tokens;
  stats_.accepted_draft_tokens += result_.accepted_draft_tokens;
  stats_.verify_steps += result_.verify_steps;
  stats_.tokens_done += iteration_.shape.new_tokens;
  for (uint32_t slot : result_.finished) {
    const RequestRecord record = record_of(requests_.at(slot));
    for (SimObserver* observer : observers_) observer->on_request_finished(record);
    requests_.release(slot);
    ++stats_.completed;
    --in_system_;
  }
  for (uint32_t slot : result_.prefilled) {
    requests_.at(slot).prefilled_ns = now;
    ++stats_.handed_off;
    hand_off_->on_prefilled(slot);
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

void Engine::handle_load_end(uint32_t slot) {
  SimRequest& request = requests_.at(slot);
  KVSIM_CHECK(request.pending_loads > 0, "load end of a request with no load in flight");
  if (--request.pending_loads == 0) scheduler_.kv_arrived(slot);
}

void Engine::record_drop(uint32_t slot, DropReason reason) {
  ++stats_.dropped[static_cast<int>(reason)];
  const SimRequest& request = requests_.at(slot);
  RequestRecord record = record_of(request);
  record.finish_ns.reset();
  for (SimObserver* observer : observers_) observer->on_request_dropped(record, reason);
  for (KvConnector* connector : scheduler_.connectors()) connector->on_dropped(request);
  scheduler_.forget(slot);
  requests_.release(slot);
  --in_system_;
}

// Starts the plan's swap transfers and its connectors' KV; returns when the last swap-out
// ends (or now).
int64_t Engine::start_transfers() {
  const int64_t now = events_->now_ns();
  int64_t stall_until = now;
  const auto transfer = [&](const SwapTransfer& swap, bool to_host) {
    int64_t& link_free = to_host ? to_host_free_ns_ : to_device_free_ns_;
    const int64_t start = std::max(now, link_free);
    const auto ns = static_cast<int64_t>(
        std::ceil(static_cast<double>(swap.bytes) / config_.host_link_bytes_per_s * kNsPerS));
    link_free = start + ns;
    events_->push(link_free, EventKind::kSwapEnd, swap.slot, config_.replica);
    (to_host ? stats_.swap_out_bytes : stats_.swap_in_bytes) += swap.bytes;
    TransferRecord record =
        TransferRecord::of(TransferKind::kSwap, requests_.at(swap.slot).id, now, start, link_free,
                           swap.bytes, config_.replica, config_.replica);
    record.to_host = to_host;
    for (SimObserver* observer : observers_) observer->on_transfer(record);
    return link_free;
  };
  for (const SwapTransfer& swap : plan_.swapped_out) {
    stall_until = std::max(stall_until, transfer(swap, true));
  }
  for (const SwapTransfer& swap : plan_.swapped_in) transfer(swap, false);
  stats_.preemptions_swap += plan_.swapped_out.size();
  stats_.preemptions_recompute += plan_.preempted.size();
  for (const ExternalStart& external : plan_.external) {
    scheduler_.connectors()[external.connector]->start(external.slot, requests_.at(external.slot),
                                                       external.kv, *this);
  }
  return stall_until;
}

void Engine::wait_for(uint32_t slot, const TransferRecord& transfer) {
  events_->push(transfer.end_ns, EventKind::kLoadEnd, slot, config_.replica);
  ++requests_.at(slot).pending_loads;
  record(transfer);
}

void Engine::record(const TransferRecord& transfer) {
  for (SimObserver* observer : observers_) observer->on_transfer(transfer);
}

bool Engine::admit_remote(const SimRequest& sent, uint32_t from_replica, uint32_t from_slot,
                          std::span<const BlockHash> hashes) {
  KVSIM_CHECK(config_.scheduler.role == EngineRole::kDecode, "admit_remote() off a decode role");
  SimRequest request;
  request.id = sent.id;
  request.prompt_tokens = sent.prompt_tokens;
  request.output_tokens = sent.output_tokens;
  request.arrival_ns = sent.arrival_ns;
  request.first_scheduled_ns = sent.first_scheduled_ns;
  request.first_token_ns = sent.first_token_ns;
  request.cached_prompt_tokens = sent.cached_prompt_tokens;
  request.preemptions = sent.preemptions;
  for (int t = 0; t < kMaxLowerTiers; ++t) request.lower_hit_tokens[t] = sent.lower_hit_tokens[t];
  request.prefilled_ns = sent.prefilled_ns;
  request.prefill_replica = from_replica;
  request.peer_slot = from_slot;
  if (const auto reason = arrival_drop_reason(sent.prompt_tokens, sent.output_tokens)) {
    RequestRecord record = record_of(request);
    record.finish_ns.reset();
    drop_before_admission(record, *reason);
    return false;
  }
  request.generated = 1;
  request.high_water = request.prompt_tokens;  // its prompt is done (elsewhere)
  request.prompt_done = request.prompt_tokens;
  request.admitted = true;
  request.remote_kv = true;
  if (!config_.scheduler.prefix_caching) hashes = {};
  request.num_hashes = static_cast<uint32_t>(hashes.size());
  cache_.add_request(request.id, request.prompt_tokens, hashes,
                     uint64_t{request.prompt_tokens} + request.output_tokens);
  scheduler_.add_waiting(requests_.add(request));
  ++stats_.received;
  ++in_system_;
  return true;
}

void Engine::release_sent(uint32_t slot) {
  scheduler_.sent_done(slot);
  requests_.release(slot);
  --in_system_;
}

void Engine::receive_done(uint32_t slot) {
  SimRequest& request = requests_.at(slot);
  request.kv_arrived_ns = events_->now_ns();
  request.remote_kv = false;
  scheduler_.kv_arrived(slot);
}

void Engine::mark_end(int64_t now_ns) {
  KVSIM_CHECK(scheduler_.idle(), "the event queue ran dry with requests left");
  KVSIM_CHECK(scheduler_.outstanding_tokens() == 0, "outstanding tokens left after the run");
  stats_.last_event_ns = now_ns;
}

void Engine::start_batch(int64_t start_ns) {
  int64_t duration = cost_model_->iteration_ns(plan_.shape);
  if (draft_cost_model_ != nullptr) {
    duration += draft_ns(*draft_cost_model_, plan_.shape, plan_.draft_shape,
                         config_.scheduler.speculative.num_speculative_tokens);
  }
  KVSIM_CHECK(duration > 0, "a cost model returned a non-positive iteration time");
  iteration_ = IterationRecord{};
  iteration_.index = stats_.iterations++;
  iteration_.replica = config_.replica;
  iteration_.decided_ns = events_->now_ns();
  iteration_.start_ns = start_ns;
  iteration_.end_ns = start_ns + duration;
  iteration_.shape = plan_.shape;
  // First scheduled: the first batch a request is in, however it was admitted (a connector's
  // KV, a preemption before it ever ran, a hand-off keep the time they already have).
  for (const ScheduledChunk& chunk : plan_.chunks) {
    auto& first = requests_.at(chunk.slot).first_scheduled_ns;
    if (!first) first = start_ns;
  }
  // A verification is costed as a chunk (the shape's prefill sums) but is decode work.
  stats_.prefill_tokens += plan_.shape.prefill_tokens - plan_.verify_tokens;
  stats_.decode_tokens += plan_.shape.decode_tokens + plan_.verify_tokens;
  stats_.recomputed_tokens += plan_.recomputed_tokens;
  stats_.busy_ns += duration;
  stats_.kv_blocks_peak = std::max(stats_.kv_blocks_peak, cache_.pool().num_used_blocks());
  events_->push(iteration_.end_ns, EventKind::kIterationEnd, iteration_.index, config_.replica);
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
      release_held();
      return;
    }
    if (!held_.empty()) {  // nothing else to run: the held requests are scheduled now
      release_held();
      continue;
    }
    if (scheduler_.num_in_transit() > 0 || scheduler_.idle()) return;
    if (!plan_.dropped.empty() || !plan_.preempted.empty()) continue;
    // Nothing runs, nothing moves, yet requests wait: the head can never be scheduled.
    const std::optional<uint32_t> slot = scheduler_.drop_head();
    KVSIM_CHECK(slot.has_value(), "stuck scheduler with empty queues");
    record_drop(*slot, DropReason::kNeverFits);
  }
}

void Engine::release_held() {
  for (uint32_t slot : held_) scheduler_.add_waiting(slot);
  held_.clear();
}

uint64_t Engine::outstanding_tokens() const {
  uint64_t tokens = scheduler_.outstanding_tokens();
  for (uint32_t slot : held_) tokens += scheduler_.remaining_tokens(requests_.at(slot));
  return tokens;
}

void Engine::report_progress() {
  if (!progress_) return;
  Progress p;
  p.sim_time_ns = events_->now_ns();
  p.arrivals = stats_.arrivals;
  p.completed = stats_.completed;
  p.dropped = stats_.dropped_total();
  p.events = stats_.events;
  p.fraction = workload_fraction(feed_->source(), p.completed + p.dropped, p.arrivals);
  progress_(p);
}

double workload_fraction(const RequestSource& source, uint64_t done, uint64_t arrivals) {
  const auto expected = source.expected_count();
  double fraction = 0;
  if (expected && *expected > 0) {
    fraction = static_cast<double>(done) / static_cast<double>(*expected);
  } else {
    // Arrivals track the file read; finished requests lag them by what is in flight.
    const double arrived = std::max(1.0, static_cast<double>(arrivals));
    fraction = source.fraction_consumed() * static_cast<double>(done) / arrived;
  }
  return std::clamp(fraction, 0.0, 1.0);
}

}  // namespace kvsim::sim
