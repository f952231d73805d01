// CostModel: how long one engine iteration takes on the device (group) being simulated.
//
// An iteration runs one forward pass over a batch: prefill chunks of some requests and one
// decode token of others. The engine describes the batch by a few sums (BatchShape), added up
// request by request in O(1) each, and asks for the duration in integer nanoseconds. Two
// implementations: the roofline (simulator/cost/roofline_cost_model.h) and a measured calibration
// table (simulator/cost/calibration_table.h); tests use hand-written fakes.
// Contract: iteration_ns() is a pure function of the shape, >= 1 for a non-empty batch.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

namespace kvsim::sim {

struct BatchShape {
  uint64_t num_seqs = 0;        // requests in the batch
  uint64_t new_tokens = 0;      // tokens computed this iteration (all requests)
  uint64_t prefill_tokens = 0;  // of which prompt (or recomputed) tokens
  uint64_t decode_tokens = 0;   // of which decode tokens (one per decoding request)
  uint64_t context_tokens = 0;  // sum over requests of cached tokens attended (read from KV)
  // Sum over requests of the (query, key) pairs attention scores: a request computing q new
  // tokens after c cached ones contributes q*c + q*(q+1)/2 (causal within the chunk).
  uint64_t attention_pairs = 0;

  // Adds one request computing `new_tokens` tokens after `context` attended cached tokens.
  void add(uint64_t new_tokens_of_request, uint64_t context, bool prefill) {
    ++num_seqs;
    new_tokens += new_tokens_of_request;
    (prefill ? prefill_tokens : decode_tokens) += new_tokens_of_request;
    context_tokens += context;
    attention_pairs +=
        new_tokens_of_request * context + new_tokens_of_request * (new_tokens_of_request + 1) / 2;
  }
  bool empty() const { return num_seqs == 0; }
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  // "roofline" or "calibration:<file>".
  virtual std::string name() const = 0;
  // Duration of one iteration over `batch`, ns (>= 1). Precondition: !batch.empty().
  virtual int64_t iteration_ns(const BatchShape& batch) const = 0;
};

// Seconds to integer nanoseconds, rounded to nearest, at least 1 and at most kMaxIterationNs
// (a century: only absurd inputs get there, and the clock must not overflow).
inline constexpr int64_t kMaxIterationNs = int64_t{3'155'760'000} * 1'000'000'000;
inline int64_t seconds_to_ns(double seconds) {
  if (!(seconds < static_cast<double>(kMaxIterationNs) / 1e9)) return kMaxIterationNs;
  const auto ns = std::llround(seconds * 1e9);
  return ns < 1 ? 1 : ns;
}

}  // namespace kvsim::sim
