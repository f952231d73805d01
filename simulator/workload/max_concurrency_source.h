// MaxConcurrencySource: a workload sent by a client that keeps at most N requests outstanding
// (workload.max_concurrency; the engine's ArrivalFeed holds the rest back,
// simulator/engine/arrival_feed.h). Every request of the inner source, unchanged.
#pragma once

#include <cstdint>
#include <memory>

#include "simulator/engine/request.h"

namespace kvsim::sim {

class MaxConcurrencySource final : public RequestSource {
 public:
  MaxConcurrencySource(std::unique_ptr<RequestSource> inner, uint32_t max_in_flight)
      : inner_(std::move(inner)), max_in_flight_(max_in_flight) {}

  StatusOr<bool> next(RequestSpec* out) override { return inner_->next(out); }
  double fraction_consumed() const override { return inner_->fraction_consumed(); }
  std::optional<uint64_t> expected_count() const override { return inner_->expected_count(); }
  WorkloadStats stats() const override { return inner_->stats(); }
  uint32_t max_in_flight() const override { return max_in_flight_; }

 private:
  std::unique_ptr<RequestSource> inner_;
  uint32_t max_in_flight_;
};

}  // namespace kvsim::sim
