// CostModel: how long one engine iteration takes on the device (group) being simulated.
//
// An iteration runs one forward pass over a batch: prefill chunks of some requests and one
// decode token of others. The engine describes the batch by a few sums (BatchShape), added up
// request by request in O(1) each, and asks for the duration in integer nanoseconds.
// Implementations (simulator/cost/): the operator model (the default), the roofline, Vidur
// profiles read as tables, a measured calibration table; tests use hand-written fakes.
// Contract: iteration_ns() is a pure function of the shape, >= 1 for a non-empty batch.
//
// The sums are enough for every per-request quantity the models use: a prefill chunk of q new
// tokens after c cached ones costs, in the operator model, terms in q*c, c, q^2, q and 1
// (simulator/cost/operator_cost_model.h), so the batch's attention time is a function of the
// sums below and never needs the list of chunks.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace kvsim::sim {

struct BatchShape {
  uint64_t num_seqs = 0;        // requests in the batch
  uint64_t new_tokens = 0;      // tokens computed this iteration (all requests)
  uint64_t prefill_tokens = 0;  // of which prompt (or recomputed) tokens: sum of q over chunks
  uint64_t decode_tokens = 0;   // of which decode tokens (one per decoding request)
  uint64_t context_tokens = 0;  // sum over requests of cached tokens attended (read from KV)
  // Sum over requests of the (query, key) pairs attention scores: a request computing q new
  // tokens after c cached ones contributes q*c + q*(q+1)/2 (causal within the chunk).
  uint64_t attention_pairs = 0;
  // Per kind of request (a decode is one token after c cached; a prefill chunk any other):
  uint64_t num_prefill_chunks = 0;      // requests computing a prefill chunk
  uint64_t prefill_token_squares = 0;   // sum of q^2 over prefill chunks
  uint64_t prefill_context_tokens = 0;  // sum of c over prefill chunks
  uint64_t prefill_cross_pairs = 0;     // sum of q*c over prefill chunks (new x cached pairs)
  uint64_t decode_context_tokens = 0;   // sum of c over decodes (KV each decode reads)
  // Tokens the model samples (the LM head's rows): one per decode and per chunk that ends
  // its request's known tokens; a chunk with more of the prompt to come samples nothing.
  uint64_t sampled_tokens = 0;

  // Adds one request computing `new_tokens_of_request` tokens after `context` attended cached
  // tokens; `prefill`: a prompt chunk (else a decode); `sampled`: it samples a token.
  void add(uint64_t new_tokens_of_request, uint64_t context, bool prefill, bool sampled) {
    const uint64_t q = new_tokens_of_request;
    ++num_seqs;
    new_tokens += q;
    context_tokens += context;
    attention_pairs += q * context + q * (q + 1) / 2;
    sampled_tokens += sampled ? 1 : 0;
    if (prefill) {
      prefill_tokens += q;
      ++num_prefill_chunks;
      prefill_token_squares += q * q;
      prefill_context_tokens += context;
      prefill_cross_pairs += q * context;
    } else {
      decode_tokens += q;
      decode_context_tokens += context;
    }
  }
  uint64_t num_decodes() const { return num_seqs - num_prefill_chunks; }
  bool empty() const { return num_seqs == 0; }
};

// One line of a cost model's explanation of an iteration (kvsim cost, the GUI's stacked bar).
struct OperatorTime {
  std::string name;     // "qkv_proj", "attention_decode", "all_reduce", ...
  std::string bound;    // "compute", "memory", "latency" (floors, launches) or "measured"
  double time_s = 0;    // all its instances in the iteration (every layer), seconds
  uint64_t count = 0;   // instances (e.g. one per layer)
  double flops = 0;     // all instances
  double bytes = 0;     // all instances (memory traffic or bytes sent)
  std::string formula;  // how time_s was computed, with the numbers of one instance
};

// An iteration explained: its operators in execution order; total_s is their sum, and the
// model's iteration_ns() is seconds_to_ns(total_s).
struct CostBreakdown {
  std::vector<OperatorTime> operators;
  double total_s = 0;
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  // "operators(a100)", "roofline", "profile:<dir>" or "calibration:<file>".
  virtual std::string name() const = 0;
  // Duration of one iteration over `batch`, ns (>= 1). Precondition: !batch.empty().
  virtual int64_t iteration_ns(const BatchShape& batch) const = 0;
  // The same iteration operator by operator (kvsim cost). The default is one line, the whole
  // iteration; models that know their parts override it.
  virtual CostBreakdown explain(const BatchShape& batch) const {
    CostBreakdown out;
    OperatorTime all;
    all.name = "iteration";
    all.bound = "measured";
    all.count = 1;
    all.time_s = static_cast<double>(iteration_ns(batch)) * 1e-9;
    all.formula = name();
    out.total_s = all.time_s;
    out.operators.push_back(std::move(all));
    return out;
  }
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
