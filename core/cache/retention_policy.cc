#include "core/cache/retention_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/base/names.h"
#include "core/config/config_reader.h"

namespace kvsim {
namespace {

class FullRetention final : public RetentionPolicy {
 public:
  std::string name() const override { return "full"; }
  std::optional<uint64_t> budget_tokens() const override { return std::nullopt; }
  void select(std::span<const uint64_t> positions, std::span<const float>,
              std::vector<uint64_t>* keep) const override {
    keep->assign(positions.begin(), positions.end());
  }
};

// Keeps positions < sink and the last `window` positions (window >= 1).
class SinkWindowRetention final : public RetentionPolicy {
 public:
  SinkWindowRetention(uint64_t sink, uint64_t window) : sink_(sink), window_(window) {}
  std::string name() const override {
    if (sink_ == 0) return "window:" + std::to_string(window_);
    return "sink:" + std::to_string(sink_) + "," + std::to_string(window_);
  }
  std::optional<uint64_t> budget_tokens() const override { return sink_ + window_; }
  uint64_t sink_tokens() const override { return sink_; }
  std::optional<uint64_t> window_tokens() const override { return window_; }
  void select(std::span<const uint64_t> positions, std::span<const float>,
              std::vector<uint64_t>* keep) const override {
    keep->clear();
    const uint64_t newest = positions.back();
    const uint64_t window_start = newest + 1 >= window_ ? newest + 1 - window_ : 0;
    for (uint64_t position : positions) {
      if (position < sink_ || position >= window_start) keep->push_back(position);
    }
  }

 private:
  uint64_t sink_;
  uint64_t window_;
};

class HeavyHitterRetention final : public RetentionPolicy {
 public:
  HeavyHitterRetention(uint64_t heavy, uint64_t recent) : heavy_(heavy), recent_(recent) {}
  std::string name() const override {
    return "h2o:" + std::to_string(heavy_) + "," + std::to_string(recent_);
  }
  std::optional<uint64_t> budget_tokens() const override { return heavy_ + recent_; }
  bool uses_scores() const override { return true; }
  uint64_t sink_tokens() const override { return heavy_; }
  std::optional<uint64_t> window_tokens() const override { return std::max<uint64_t>(recent_, 1); }
  void select(std::span<const uint64_t> positions, std::span<const float> scores,
              std::vector<uint64_t>* keep) const override;

 private:
  uint64_t heavy_;
  uint64_t recent_;
};

void HeavyHitterRetention::select(std::span<const uint64_t> positions,
                                  std::span<const float> scores,
                                  std::vector<uint64_t>* keep) const {
  keep->clear();
  const size_t n = positions.size();
  const size_t num_recent = std::min<size_t>(std::max<uint64_t>(recent_, 1), n);
  const size_t num_older = n - num_recent;
  if (num_older <= heavy_) {
    keep->assign(positions.begin(), positions.end());
    return;
  }
  // Indices of the older positions, best first: by score (ties to the older position), or,
  // without scores, the earliest ones.
  std::vector<size_t> order(num_older);
  std::iota(order.begin(), order.end(), size_t{0});
  if (!scores.empty()) {
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  }
  order.resize(heavy_);
  std::sort(order.begin(), order.end());
  for (size_t index : order) keep->push_back(positions[index]);
  keep->insert(keep->end(), positions.end() - static_cast<ptrdiff_t>(num_recent), positions.end());
}

// Parses "A" or "A,B" into positive integers.
Status parse_arguments(std::string_view name, std::string_view text, size_t count,
                       std::vector<uint64_t>* out) {
  const std::string expected = fmt::format("{}:{}", name, count == 1 ? "N" : "A,B");
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    uint64_t value = 0;
    if (!parse_uint64(text.substr(start, comma - start), &value).is_ok() || value == 0 ||
        value > (1ull << 40)) {
      return Status::invalid_argument(fmt::format(
          "retention policy '{}:{}': expected {} with positive integers", name, text, expected));
    }
    out->push_back(value);
    start = comma + 1;
  }
  if (out->size() != count) {
    return Status::invalid_argument(
        fmt::format("retention policy '{}:{}': expected {}", name, text, expected));
  }
  return Status::ok();
}

}  // namespace

std::vector<uint64_t> RetentionPolicy::select_prefix(uint64_t num_tokens) const {
  std::vector<uint64_t> positions(num_tokens);
  std::iota(positions.begin(), positions.end(), uint64_t{0});
  std::vector<uint64_t> keep;
  if (num_tokens > 0) select(positions, {}, &keep);
  return keep;
}

std::vector<std::string> retention_policy_names() { return {"full", "window", "sink", "h2o"}; }

StatusOr<std::unique_ptr<RetentionPolicy>> make_retention_policy(std::string_view spec) {
  const size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  const std::string_view args = colon == std::string_view::npos ? "" : spec.substr(colon + 1);
  std::vector<uint64_t> values;
  if (name == "full" && colon == std::string_view::npos) return {std::make_unique<FullRetention>()};
  if (name == "window") {
    KVSIM_RETURN_IF_ERROR(parse_arguments(name, args, 1, &values));
    return {std::make_unique<SinkWindowRetention>(0, values[0])};
  }
  if (name == "sink") {
    KVSIM_RETURN_IF_ERROR(parse_arguments(name, args, 2, &values));
    return {std::make_unique<SinkWindowRetention>(values[0], values[1])};
  }
  if (name == "h2o") {
    KVSIM_RETURN_IF_ERROR(parse_arguments(name, args, 2, &values));
    return {std::make_unique<HeavyHitterRetention>(values[0], values[1])};
  }
  return Status::invalid_argument(
      unknown_name_message("retention policy", spec, {"full", "window:W", "sink:S,W", "h2o:H,R"}));
}

}  // namespace kvsim
