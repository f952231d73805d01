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
//
// Sliding-window layers (hybrid models: Gemma-2/3, gpt-oss). With window_tokens = W > 0 a
// sliding layer's token at position p attends to the keys at (p - W, p] — W keys, itself
// included (vLLM's sliding window). A request computing q tokens (queries i = 0..q-1 at
// positions c + i) after c cached ones then scores, per sliding layer,
//   all pairs       sum_{i<q} min(c + i + 1, W)
//   causal pairs    y_w = n (n + 1) / 2, n = min(q, W): the leading triangle, rows i < W whose
//                   in-chunk keys end on the causal diagonal (a whole chunk's triangle when
//                   q <= W)
//   dense pairs     x_w = all pairs - y_w: the cached keys in the window and the band of rows
//                   i >= W, W keys each (interior tiles of a windowed kernel are unmasked)
// and reads min(c, W - 1) cached keys (a decode: min(c, W - 1) + 1 keys with itself). While the
// window does not bind (c + q <= W) x_w = q c and y_w = q (q + 1) / 2, the full layers' split.
// add() sums these in closed form, O(1) per request; with W = 0 they stay 0 and every other
// sum is as without a window.
#pragma once

#include <algorithm>
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
  // its request's known tokens; a chunk with more of the prompt to come samples nothing; a
  // speculative step verifying d drafts samples 1 + d.
  uint64_t sampled_tokens = 0;

  // The model's sliding window W, tokens (0 = no sliding layers: the window sums stay 0). Set
  // before the first add(); the cost model checks that it is its model's window.
  uint32_t window_tokens = 0;
  uint64_t window_attention_pairs = 0;         // sum over requests of all pairs (above)
  uint64_t window_prefill_context_tokens = 0;  // sum over prefill chunks of min(c, W - 1)
  uint64_t window_decode_context_tokens = 0;   // sum over decodes of min(c, W - 1)
  uint64_t window_prefill_cross_pairs = 0;     // sum over prefill chunks of x_w (dense)
  uint64_t window_prefill_causal_pairs = 0;    // sum over prefill chunks of y_w (triangle)
  // Sums over prefill chunks of x_w / q and y_w / q (pairs per query): the operator model's
  // prefill efficiency e(q) = e_max q / (q + half) makes a chunk's time x_w (q + half) / q.
  double window_prefill_cross_per_query = 0;
  double window_prefill_causal_per_query = 0;

  // Adds one request computing `new_tokens_of_request` tokens after `context` attended cached
  // tokens; `prefill`: a prompt chunk or any step of more than one token (a speculative
  // verification of 1 + d tokens is costed as a chunk), else a decode; `sampled_rows`: the
  // tokens it samples (true: one).
  void add(uint64_t new_tokens_of_request, uint64_t context, bool prefill, uint64_t sampled_rows) {
    const uint64_t q = new_tokens_of_request;
    ++num_seqs;
    new_tokens += q;
    context_tokens += context;
    attention_pairs += q * context + q * (q + 1) / 2;
    sampled_tokens += sampled_rows;
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
    if (window_tokens > 0) add_windowed(q, context, prefill);
  }
  uint64_t num_decodes() const { return num_seqs - num_prefill_chunks; }
  bool empty() const { return num_seqs == 0; }

  // sum_{i<n} min(first + i, cap): the capped arithmetic series the window sums are made of.
  static uint64_t sum_capped(uint64_t first, uint64_t n, uint64_t cap) {
    const uint64_t below = first >= cap ? 0 : std::min(n, cap - first);  // terms first + i < cap
    return below * first + (below > 0 ? below * (below - 1) / 2 : 0) + (n - below) * cap;
  }

 private:
  // The window sums of one request (the comment above the struct), W = window_tokens > 0.
  void add_windowed(uint64_t q, uint64_t c, bool prefill) {
    const uint64_t w = window_tokens;
    const uint64_t cached_keys = std::min(c, w - 1);
    const uint64_t pairs = sum_capped(c + 1, q, w);
    window_attention_pairs += pairs;
    if (!prefill) {
      window_decode_context_tokens += cached_keys;
      return;
    }
    const uint64_t n = std::min(q, w);
    const uint64_t causal = n * (n + 1) / 2;
    const uint64_t cross = pairs - causal;
    window_prefill_context_tokens += cached_keys;
    window_prefill_cross_pairs += cross;
    window_prefill_causal_pairs += causal;
    const double queries = static_cast<double>(std::max<uint64_t>(q, 1));
    window_prefill_cross_per_query += static_cast<double>(cross) / queries;
    window_prefill_causal_per_query += static_cast<double>(causal) / queries;
  }
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
  std::string kernel;   // an EP all-to-all's DeepEP mode ("normal", "low_latency"); else ""
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
