// RetentionPolicy: which token positions of a sequence stay in the KV cache.
//
// One policy object serves both halves of kvsim: the simulator's KV cache manager frees the
// blocks that fall wholly outside what a sequence keeps, and the tiny model's forward pass
// attends only to the kept positions (H2O there gets the real accumulated attention scores).
//
// A policy is a typed value, RetentionSpec, parsed once from its text (YAML, --set, --policy)
// and carrying its arguments; one name table (retention_kind_name) names its kinds.
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

enum class RetentionKind : uint8_t {
  kFull,    // "full"
  kWindow,  // "window:W"
  kSink,    // "sink:S,W"
  kH2o,     // "h2o:H,R"
};
// "full", "window", "sink", "h2o": the text before the ':'.
std::string_view retention_kind_name(RetentionKind kind);

// The largest argument a spec takes: far beyond any context, small enough that sink + window
// never overflows.
inline constexpr uint64_t kMaxRetentionTokens = uint64_t{1} << 40;

struct RetentionSpec {
  RetentionKind kind = RetentionKind::kFull;
  uint64_t sink = 0;    // sink:S,W: S; h2o:H,R: H (the heavy hitters); else 0
  uint64_t window = 0;  // window:W and sink:S,W: W; h2o:H,R: R (the recent ones); full: 0

  bool operator==(const RetentionSpec&) const = default;
};

// Parses "full", "window:W", "sink:S,W" or "h2o:H,R" (arguments: integers in [1, 2^40]). An
// unknown name lists the valid forms (and the nearest); a malformed or zero argument says what
// was expected.
StatusOr<RetentionSpec> parse_retention(std::string_view text);
// The canonical text, e.g. "sink:4,60": parse_retention(retention_text(s)) == s.
std::string retention_text(const RetentionSpec& spec);
// The forms parse_retention accepts, in table order: full, window:W, sink:S,W, h2o:H,R.
std::vector<std::string> retention_forms();
// True when `name` (the text before a ':') names a retention kind.
bool is_retention_name(std::string_view name);

// vLLM v1's sliding window, the one rule for a uniform sliding-window model and a hybrid
// model's sliding group: SlidingWindowManager.get_num_skipped_tokens frees the blocks wholly
// before num_computed_tokens - sliding_window + 1, so a sequence keeps the W - 1 keys before
// the token it computes next: window:W-1. A window below 2 keeps nothing and is an error.
StatusOr<RetentionSpec> sliding_window_retention(uint32_t sliding_window);

class RetentionPolicy {
 public:
  virtual ~RetentionPolicy() = default;

  // The typed spec it was built from.
  virtual RetentionSpec spec() const = 0;
  // The canonical text of spec(), e.g. "sink:4,60".
  std::string name() const { return retention_text(spec()); }
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

// Builds the policy of a spec parse_retention accepts (its arguments' ranges are checked).
std::unique_ptr<RetentionPolicy> make_retention_policy(const RetentionSpec& spec);

}  // namespace kvsim
