// RequestSpec: one request of a workload as the engine receives it, and RequestSource, the
// stream of them (a trace being read, or a synthetic generator).
//
// Prompt content is never held as tokens; what matters for the KV cache is which prompt
// blocks are identical between requests. A request says so in one of two forms:
//   - hash_ids: one id per `hash_block_tokens` tokens of the prompt (Mooncake traces: 512),
//     equal ids at equal positions = identical content (so a reusable prefix);
//   - prefix_group set: the first `prefix_tokens` tokens equal those of every other request
//     of the same group (a system prompt); the rest of the prompt is unique, unless
//     content_id is set: then the rest equals that of every request with the same group (or
//     none) and content_id (a benchmark's repeated prompt, or a question asked again after a
//     shared system prompt).
// Neither: the whole prompt is unique (or, with content_id, equal to its repeats). The engine turns
// either form into block hashes at its own block size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace kvsim::sim {

struct RequestSpec {
  uint64_t id = 0;                       // 0, 1, 2, ... in arrival order (per simulation)
  int64_t arrival_ns = 0;                // from the start of the simulation, non-decreasing
  uint32_t prompt_tokens = 0;            // >= 1
  uint32_t output_tokens = 0;            // >= 1 (the first comes out of the prefill)
  std::vector<uint64_t> hash_ids;        // content ids per hash_block_tokens prompt tokens
  uint32_t hash_block_tokens = 0;        // tokens per hash id; 0 when hash_ids is empty
  std::optional<uint64_t> prefix_group;  // shared-prefix group, if any
  uint32_t prefix_tokens = 0;            // tokens shared within the group (<= prompt_tokens)
  std::optional<uint64_t> content_id;    // the prompt beyond the group's prefix repeats
  // Speculative decoding: this request's i.i.d. draft acceptance rate (a CSV trace's
  // `acceptance` column), else the scenario's rates.
  std::optional<double> acceptance;
};

// Rows a workload left out, and why; reported in the summary.
struct WorkloadStats {
  uint64_t rows_read = 0;         // data rows seen (header excluded)
  uint64_t rows_skipped_bad = 0;  // malformed rows skipped under skip_bad_rows
  uint64_t rows_failed = 0;       // rows of failed requests (BurstGPT: zero response tokens)
  std::string first_bad_row;      // "file:line: what was wrong" of the first skipped row
};

class RequestSource {
 public:
  virtual ~RequestSource() = default;

  // Writes the next request to *out and returns true, or returns false at the end. Arrivals
  // are non-decreasing. A malformed input stops with a Status naming file:line.
  virtual StatusOr<bool> next(RequestSpec* out) = 0;
  // Share of the workload consumed so far, in [0, 1] (bytes of a file, requests generated).
  virtual double fraction_consumed() const = 0;
  // The number of requests when known in advance (synthetic workloads, max_requests).
  virtual std::optional<uint64_t> expected_count() const { return std::nullopt; }
  virtual WorkloadStats stats() const { return {}; }
  // The most requests the client keeps outstanding (0: no limit, arrivals as given);
  // simulator/engine/arrival_feed.h.
  virtual uint32_t max_in_flight() const { return 0; }
};

}  // namespace kvsim::sim
