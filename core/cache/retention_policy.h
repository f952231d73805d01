// RetentionPolicy: which token positions of a sequence stay in the KV cache.
//
// One policy object serves both halves of kvsim: the simulator's KV cache manager frees the
// blocks that fall wholly outside what a sequence keeps, and the tiny model's forward pass
// attends only to the kept positions (H2O there gets the real accumulated attention scores).
//
// select() is incremental, as a real engine is: it is given the positions a sequence holds
// now (ascending; an evicted position never comes back) and their scores, and says which of
// them to keep. Policies (YAML/CLI spec -> meaning):
//   full        keep everything
//   window:W    keep the last W positions (position >= newest - W + 1)
//   sink:S,W    keep positions < S (attention sinks, StreamingLLM) and the last W
//   h2o:H,R     keep the last R positions held plus the H others with the highest
//               accumulated attention score (Heavy-Hitter Oracle). Without scores (the
//               simulator has none) it keeps the same budget, first H + last R, and
//               uses_scores() tells callers to say so.
// Invariants: the result is a subset of the input, ascending, always holds the newest
// position, and has at most budget_tokens() entries when the budget is bounded.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace kvsim {

class RetentionPolicy {
 public:
  virtual ~RetentionPolicy() = default;

  // The canonical spec, e.g. "sink:4,60"; make_retention_policy(name()) rebuilds the policy.
  virtual std::string name() const = 0;
  // Most positions a sequence keeps; empty for `full`.
  virtual std::optional<uint64_t> budget_tokens() const = 0;
  // True when select() ranks positions by score (H2O).
  virtual bool uses_scores() const { return false; }

  // Without scores every policy keeps the first sink_tokens() positions and the last
  // window_tokens() held positions (empty: everything): full = (0, all), window:W = (0, W),
  // sink:S,W = (S, W), h2o:H,R = (H, max(R, 1)). The KV cache manager trims blocks from these
  // two numbers in O(1) per step instead of calling select() over every position.
  virtual uint64_t sink_tokens() const { return 0; }
  virtual std::optional<uint64_t> window_tokens() const { return std::nullopt; }

  // `positions`: held positions, ascending, non-empty. `scores`: one per position, or empty
  // (no scores known). Writes the kept positions, ascending, to *keep (cleared first).
  virtual void select(std::span<const uint64_t> positions, std::span<const float> scores,
                      std::vector<uint64_t>* keep) const = 0;

  // Convenience for callers without scores: the kept positions of [0, num_tokens).
  std::vector<uint64_t> select_prefix(uint64_t num_tokens) const;
};

// Builds a policy from its spec ("full", "window:W", "sink:S,W", "h2o:H,R"). An unknown name
// lists the valid ones; a malformed or zero argument says what was expected.
StatusOr<std::unique_ptr<RetentionPolicy>> make_retention_policy(std::string_view spec);

// The policy names make_retention_policy accepts: full, window, sink, h2o.
std::vector<std::string> retention_policy_names();

}  // namespace kvsim
