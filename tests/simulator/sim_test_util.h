// Hand-written fakes for simulator tests: an in-memory workload and a fixed-latency cost
// model, plus small helpers to build an engine around them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/units.h"
#include "simulator/engine/cost_model.h"
#include "simulator/engine/engine.h"
#include "simulator/engine/request.h"

namespace kvsim::sim::testing {

// A workload held in memory, in the order given (arrivals must be non-decreasing).
class VectorSource final : public RequestSource {
 public:
  explicit VectorSource(std::vector<RequestSpec> requests) : requests_(std::move(requests)) {}
  StatusOr<bool> next(RequestSpec* out) override {
    if (next_ >= requests_.size()) return false;
    *out = requests_[next_++];
    return true;
  }
  double fraction_consumed() const override {
    return requests_.empty() ? 1.0 : static_cast<double>(next_) / requests_.size();
  }
  std::optional<uint64_t> expected_count() const override { return requests_.size(); }

 private:
  std::vector<RequestSpec> requests_;
  size_t next_ = 0;
};

// Every iteration takes base_ns + per_token_ns x new tokens.
class FixedCostModel final : public CostModel {
 public:
  FixedCostModel(int64_t base_ns, int64_t per_token_ns = 0)
      : base_ns_(base_ns), per_token_ns_(per_token_ns) {}
  std::string name() const override { return "fixed"; }
  int64_t iteration_ns(const BatchShape& batch) const override {
    return base_ns_ + per_token_ns_ * static_cast<int64_t>(batch.new_tokens);
  }

 private:
  int64_t base_ns_;
  int64_t per_token_ns_;
};

inline RequestSpec request(uint64_t id, int64_t arrival_ns, uint32_t prompt, uint32_t output) {
  RequestSpec r;
  r.id = id;
  r.arrival_ns = arrival_ns;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  return r;
}

// `count` requests of fixed lengths arriving every `gap_ns`.
inline std::vector<RequestSpec> constant_requests(size_t count, int64_t gap_ns, uint32_t prompt,
                                                  uint32_t output) {
  std::vector<RequestSpec> out;
  for (size_t i = 0; i < count; ++i) {
    out.push_back(request(i, static_cast<int64_t>(i) * gap_ns, prompt, output));
  }
  return out;
}

inline EngineConfig small_config(uint32_t num_blocks, uint32_t block_size = 16) {
  EngineConfig config;
  config.cache.num_blocks = num_blocks;
  config.cache.block_size = block_size;
  config.cache.eviction = EvictionKind::kLru;
  config.cache.bytes_per_block = kMiB;
  config.cache.num_host_blocks = 1 << 20;
  config.host_link_bytes_per_s = 32e9;
  config.scheduler.max_num_seqs = 256;
  config.scheduler.max_num_batched_tokens = 2048;
  return config;
}

}  // namespace kvsim::sim::testing
