#include "core/cache/retention_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/base/check.h"
#include "core/base/enum_names.h"
#include "core/base/names.h"
#include "core/config/config_reader.h"

namespace kvsim {
namespace {

// The one table of retention kinds, and each kind's arguments as its form shows them.
constexpr EnumNames<RetentionKind, 4> kKindNames{{{
    {RetentionKind::kFull, "full"},
    {RetentionKind::kWindow, "window"},
    {RetentionKind::kSink, "sink"},
    {RetentionKind::kH2o, "h2o"},
}}};
constexpr EnumNames<RetentionKind, 4> kArguments{{{
    {RetentionKind::kFull, ""},
    {RetentionKind::kWindow, "W"},
    {RetentionKind::kSink, "S,W"},
    {RetentionKind::kH2o, "H,R"},
}}};

class FullRetention final : public RetentionPolicy {
 public:
  RetentionSpec spec() const override { return {}; }
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
  RetentionSpec spec() const override {
    return {sink_ == 0 ? RetentionKind::kWindow : RetentionKind::kSink, sink_, window_};
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
  RetentionSpec spec() const override { return {RetentionKind::kH2o, heavy_, recent_}; }
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

// Parses the arguments of `kind` ("A" or "A,B", positive integers; `text`: what follows the
// ':', none without one) into *out.
Status parse_arguments(RetentionKind kind, std::optional<std::string_view> text,
                       RetentionSpec* out) {
  const std::string_view form = kArguments.name(kind);
  const size_t count = form.empty() ? 0 : form.find(',') == std::string_view::npos ? 1 : 2;
  const std::string given = text ? fmt::format("{}:{}", kKindNames.name(kind), *text)
                                 : std::string(kKindNames.name(kind));
  const std::string expected =
      count == 0 ? std::string(kKindNames.name(kind))
                 : fmt::format("{}:{} with positive integers", kKindNames.name(kind), form);
  std::vector<uint64_t> values;
  for (size_t start = 0; text && start <= text->size();) {
    const size_t comma = std::min(text->find(',', start), text->size());
    uint64_t value = 0;
    if (!parse_uint64(text->substr(start, comma - start), &value).is_ok() || value == 0 ||
        value > kMaxRetentionTokens) {
      values.clear();  // reported below
      break;
    }
    values.push_back(value);
    start = comma + 1;
  }
  if (values.size() != count || (count == 0 && text)) {
    return Status::invalid_argument(
        fmt::format("retention policy '{}': expected {}", given, expected));
  }
  out->kind = kind;
  if (count >= 1) out->window = values.back();
  if (count == 2) out->sink = values.front();
  return Status::ok();
}

// The ranges parse_retention gives a spec.
bool in_range(const RetentionSpec& spec) {
  if (spec.kind == RetentionKind::kFull) return spec.sink == 0 && spec.window == 0;
  const bool sink_ok = spec.kind == RetentionKind::kWindow
                           ? spec.sink == 0
                           : spec.sink >= 1 && spec.sink <= kMaxRetentionTokens;
  return sink_ok && spec.window >= 1 && spec.window <= kMaxRetentionTokens;
}

}  // namespace

std::vector<uint64_t> RetentionPolicy::select_prefix(uint64_t num_tokens) const {
  std::vector<uint64_t> positions(num_tokens);
  std::iota(positions.begin(), positions.end(), uint64_t{0});
  std::vector<uint64_t> keep;
  if (num_tokens > 0) select(positions, {}, &keep);
  return keep;
}

std::string_view retention_kind_name(RetentionKind kind) { return kKindNames.name(kind); }

std::vector<std::string> retention_forms() {
  std::vector<std::string> out;
  for (RetentionKind kind : kKindNames.values()) {
    const std::string_view arguments = kArguments.name(kind);
    out.push_back(std::string(kKindNames.name(kind)) +
                  (arguments.empty() ? "" : ":" + std::string(arguments)));
  }
  return out;
}

bool is_retention_name(std::string_view name) {
  return kKindNames.parse(name, "retention policy").is_ok();
}

StatusOr<RetentionSpec> sliding_window_retention(uint32_t sliding_window) {
  if (sliding_window < 2) {
    return Status::invalid_argument(
        fmt::format("a sliding window needs at least 2 tokens, got {}", sliding_window));
  }
  return RetentionSpec{RetentionKind::kWindow, 0, uint64_t{sliding_window} - 1};
}

StatusOr<RetentionSpec> parse_retention(std::string_view text) {
  const size_t colon = text.find(':');
  const auto kind = kKindNames.parse(text.substr(0, colon), "retention policy");
  if (!kind.is_ok()) {
    return Status::invalid_argument(
        unknown_name_message("retention policy", text, retention_forms()));
  }
  std::optional<std::string_view> arguments;
  if (colon != std::string_view::npos) arguments = text.substr(colon + 1);
  RetentionSpec spec;
  KVSIM_RETURN_IF_ERROR(parse_arguments(*kind, arguments, &spec));
  return spec;
}

std::string retention_text(const RetentionSpec& spec) {
  const std::string_view name = kKindNames.name(spec.kind);
  switch (spec.kind) {
    case RetentionKind::kFull:
      return std::string(name);
    case RetentionKind::kWindow:
      return fmt::format("{}:{}", name, spec.window);
    case RetentionKind::kSink:
    case RetentionKind::kH2o:
      return fmt::format("{}:{},{}", name, spec.sink, spec.window);
  }
  KVSIM_CHECK(false, "a retention kind missing from retention_text");
}

std::unique_ptr<RetentionPolicy> make_retention_policy(const RetentionSpec& spec) {
  KVSIM_CHECK(in_range(spec), "a retention spec out of parse_retention's ranges");
  switch (spec.kind) {
    case RetentionKind::kFull:
      return std::make_unique<FullRetention>();
    case RetentionKind::kWindow:
    case RetentionKind::kSink:
      return std::make_unique<SinkWindowRetention>(spec.sink, spec.window);
    case RetentionKind::kH2o:
      return std::make_unique<HeavyHitterRetention>(spec.sink, spec.window);
  }
  KVSIM_CHECK(false, "a retention kind missing from make_retention_policy");
}

}  // namespace kvsim
