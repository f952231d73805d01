#include "simulator/output/summary_reading.h"

#include <fmt/format.h>

#include "core/base/text_format.h"

namespace kvsim::sim {
namespace {

constexpr double kQueuedShareOfE2e = 0.1;
constexpr double kBusyFraction = 0.9;
constexpr double kKvFullPeak = 0.95;

std::string percent(double fraction) { return format_fixed(fraction * 100, 1) + "%"; }

std::string kv_figures(const Summary& s) {
  return s.preemptions > 0 ? fmt::format("peak {}, {} preemptions", percent(s.kv_usage_peak),
                                         format_count(s.preemptions))
                           : fmt::format("peak {}", percent(s.kv_usage_peak));
}

std::string reuse_note(const Summary& s) {
  if (s.prefix_cache_hit_rate <= 0) return "";
  return fmt::format("; prefix reuse saved {} of prompt tokens", percent(s.prefix_cache_hit_rate));
}

// The run kept up with its arrivals: say so, and how close KV memory came to binding.
std::string unqueued_reading(const Summary& s, bool kv_full) {
  std::string kv_note = kv_full                  ? ": the KV pool is at its limit"
                        : s.kv_usage_peak >= 0.8 ? ": little KV headroom for more load"
                                                 : "";
  return fmt::format(
      "the arrival rate bounds this run: requests hardly queued (mean {} s), the busiest engine "
      "iterated {} of the time and the KV pool ran at {}{}",
      format_fixed(s.queue_s.mean, 2), percent(s.busy_fraction), kv_figures(s), kv_note);
}

}  // namespace

std::string summary_reading(const Summary& s) {
  const bool queued = s.queue_s.mean > kQueuedShareOfE2e * s.e2e_s.mean;
  const bool busy = s.busy_fraction >= kBusyFraction;
  const bool kv_full = s.preemptions > 0 || s.kv_usage_peak >= kKvFullPeak;
  const std::string queue = format_fixed(s.queue_s.mean, 2);
  const std::string busy_text = percent(s.busy_fraction);
  std::string text;
  if (!queued) {
    text = unqueued_reading(s, kv_full);
  } else if (busy && kv_full) {
    text = fmt::format(
        "compute binds: the busiest engine iterated {} of the time and requests queued (mean {} "
        "s); the KV pool filled as well ({}), so more KV memory alone would not serve this load",
        busy_text, queue, kv_figures(s));
  } else if (busy) {
    text = fmt::format(
        "compute binds: the busiest engine iterated {} of the time and requests queued (mean {} "
        "s) with the KV pool at {}: more KV memory would not help",
        busy_text, queue, kv_figures(s));
  } else if (kv_full) {
    text = fmt::format(
        "KV memory binds: the pool filled ({}) and requests queued (mean {} s) while the busiest "
        "engine iterated only {} of the time",
        kv_figures(s), queue, busy_text);
  } else {
    text = fmt::format(
        "the scheduler's batch limits (max_num_seqs, max_num_batched_tokens) bind: requests "
        "queued (mean {} s) with the busiest engine iterating {} of the time and the KV pool at {}",
        queue, busy_text, kv_figures(s));
  }
  return "reading  " + text + reuse_note(s) + "\n";
}

std::string dropped_reasons(const Summary& s) {
  // What each reason means, in dropped_by_reason's order.
  constexpr const char* kMeanings[] = {
      "longer than the model's context",
      "needs more KV blocks than the pool has",
      "prompt over max_num_batched_tokens",
      "could not be scheduled alone",
  };
  const auto dropped = dropped_by_reason(s);
  std::string text;
  for (size_t i = 0; i < dropped.size(); ++i) {
    if (dropped[i].count == 0) continue;
    text += fmt::format("{}{} {} ({})", text.empty() ? "" : ", ", format_count(dropped[i].count),
                        dropped[i].reason, kMeanings[i]);
  }
  return text.empty() ? "" : "dropped  " + text + "\n";
}

}  // namespace kvsim::sim
