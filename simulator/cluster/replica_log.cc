#include "simulator/cluster/replica_log.h"

#include "simulator/engine/engine.h"

namespace kvsim::sim {

ReplicaState replica_state_of(const Engine& engine) {
  ReplicaState s;
  s.snapshot = engine.snapshot();
  s.in_transit = engine.scheduler().num_in_transit();
  s.outstanding_tokens = engine.outstanding_tokens();
  s.tokens_done = engine.stats().tokens_done;
  return s;
}

void ReplicaLog::begin_step(StepKind kind, int64_t time_ns) {
  ReplicaStep step;
  step.kind = kind;
  step.time_ns = time_ns;
  step.first_call = static_cast<uint32_t>(calls_.size());
  step.first_push = static_cast<uint32_t>(pushes_.size());
  steps_.push_back(step);
}

void ReplicaLog::end_step() {
  ReplicaStep& step = steps_.back();
  step.end_call = static_cast<uint32_t>(calls_.size());
  step.end_push = static_cast<uint32_t>(pushes_.size());
}

void ReplicaLog::capture_state(int64_t before_ns) {
  states_.push_back(replica_state_of(*engine_));
  state_times_.push_back(before_ns);
}

void ReplicaLog::replay(const ReplicaStep& step, const std::vector<SimObserver*>& observers) const {
  for (uint32_t c = step.first_call; c < step.end_call; ++c) {
    const Call call = calls_[c];
    for (SimObserver* observer : observers) {
      switch (call.kind) {
        case CallKind::kIteration:
          observer->on_iteration(iterations_[call.index], snapshots_[call.index]);
          break;
        case CallKind::kFinished:
          observer->on_request_finished(requests_[call.index]);
          break;
        case CallKind::kDropped:
          observer->on_request_dropped(requests_[call.index], call.reason);
          break;
        case CallKind::kTransfer:
          observer->on_transfer(transfers_[call.index]);
          break;
      }
    }
  }
}

void ReplicaLog::clear() {
  steps_.clear();
  states_.clear();
  state_times_.clear();
  calls_.clear();
  pushes_.clear();
  iterations_.clear();
  snapshots_.clear();
  requests_.clear();
  transfers_.clear();
}

void ReplicaLog::take(ReplicaLog* from) {
  steps_.swap(from->steps_);
  states_.swap(from->states_);
  state_times_.swap(from->state_times_);
  calls_.swap(from->calls_);
  pushes_.swap(from->pushes_);
  iterations_.swap(from->iterations_);
  snapshots_.swap(from->snapshots_);
  requests_.swap(from->requests_);
  transfers_.swap(from->transfers_);
  from->clear();
}

void ReplicaLog::on_iteration(const IterationRecord& iteration, const EngineSnapshot& after) {
  calls_.push_back(
      {CallKind::kIteration, DropReason::kTooLong, static_cast<uint32_t>(iterations_.size())});
  iterations_.push_back(iteration);
  snapshots_.push_back(after);
}

void ReplicaLog::on_request_finished(const RequestRecord& request) {
  calls_.push_back(
      {CallKind::kFinished, DropReason::kTooLong, static_cast<uint32_t>(requests_.size())});
  requests_.push_back(request);
}

void ReplicaLog::on_request_dropped(const RequestRecord& request, DropReason reason) {
  calls_.push_back({CallKind::kDropped, reason, static_cast<uint32_t>(requests_.size())});
  requests_.push_back(request);
}

void ReplicaLog::on_transfer(const TransferRecord& transfer) {
  calls_.push_back(
      {CallKind::kTransfer, DropReason::kTooLong, static_cast<uint32_t>(transfers_.size())});
  transfers_.push_back(transfer);
}

const ReplicaState& ReplicaReplay::state_at(int64_t row_ns) {
  if (log == nullptr) return kept;
  while (next_state < log->num_states() && log->state_before(next_state) <= row_ns) ++next_state;
  return next_state < log->num_states() ? log->state(next_state) : kept;
}

void ReplicaReplay::keep_state() {
  if (log->num_states() > 0) kept = log->state(log->num_states() - 1);
  next_state = 0;
}

}  // namespace kvsim::sim
