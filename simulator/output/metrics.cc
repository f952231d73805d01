#include "simulator/output/metrics.h"

#include <algorithm>
#include <cmath>

#include "simulator/output/request_latency.h"
#include "simulator/output/stage_metrics.h"

namespace kvsim::sim {
namespace {

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

void flatten_into(const nlohmann::ordered_json& node, const std::string& prefix,
                  std::vector<std::pair<std::string, nlohmann::ordered_json>>* out) {
  if (!node.is_object()) {
    out->emplace_back(prefix, node);
    return;
  }
  for (const auto& [key, value] : node.items()) {
    flatten_into(value, prefix.empty() ? key : prefix + "." + key, out);
  }
}

}  // namespace

nlohmann::ordered_json latency_json(const LatencySummary& s) {
  return {{"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}};
}

void MetricsCollector::on_request_finished(const RequestRecord& r) {
  const RequestLatency latency = latency_of(r);
  ttft_s_.add(latency.ttft_s);
  e2e_s_.add(latency.e2e_s);
  queue_s_.add(latency.queue_s);
  if (latency.tpot_s) tpot_s_.add(*latency.tpot_s);
  prompt_tokens_ += r.prompt_tokens;
  cached_prompt_tokens_ += r.cached_prompt_tokens;
  output_tokens_ += r.output_tokens;
}

Summary MetricsCollector::build(const RunInfo& info, const EngineStats& stats,
                                const WorkloadStats& workload) {
  Summary s;
  s.info = info;
  s.requests_arrived = stats.arrivals;
  s.requests_completed = stats.completed;
  s.requests_dropped = stats.dropped_total();
  s.dropped_too_long = stats.dropped[static_cast<int>(DropReason::kTooLong)];
  s.dropped_too_large = stats.dropped[static_cast<int>(DropReason::kTooLarge)];
  s.dropped_budget = stats.dropped[static_cast<int>(DropReason::kBudget)];
  s.dropped_never_fits = stats.dropped[static_cast<int>(DropReason::kNeverFits)];
  s.sim_duration_s = ns_to_s(stats.last_event_ns);
  s.prompt_tokens = prompt_tokens_;
  s.cached_prompt_tokens = cached_prompt_tokens_;
  s.output_tokens = output_tokens_;
  s.output_tokens_per_s = ratio(static_cast<double>(output_tokens_), s.sim_duration_s);
  s.total_tokens_per_s =
      ratio(static_cast<double>(prompt_tokens_ + output_tokens_), s.sim_duration_s);
  s.ttft_s = ttft_s_.summary();
  s.tpot_s = tpot_s_.summary();
  s.e2e_s = e2e_s_.summary();
  s.queue_s = queue_s_.summary();
  s.preemptions_recompute = stats.preemptions_recompute;
  s.preemptions_swap = stats.preemptions_swap;
  s.preemptions = s.preemptions_recompute + s.preemptions_swap;
  s.prefix_cache_hit_rate =
      ratio(static_cast<double>(cached_prompt_tokens_), static_cast<double>(prompt_tokens_));
  s.prefill_tokens_computed = stats.prefill_tokens;
  s.decode_tokens_computed = stats.decode_tokens;
  s.recomputed_tokens = stats.recomputed_tokens;
  s.draft_tokens = stats.draft_tokens;
  s.accepted_draft_tokens = stats.accepted_draft_tokens;
  s.verify_steps = stats.verify_steps;
  const double blocks = static_cast<double>(info.num_usable_blocks);
  s.kv_usage_peak = ratio(stats.kv_blocks_peak, blocks);
  const double duration_ns = static_cast<double>(stats.last_event_ns);
  s.kv_usage_mean = ratio(static_cast<double>(stats.kv_used_block_ns), duration_ns * blocks);
  s.concurrency_mean = ratio(static_cast<double>(stats.in_system_ns), duration_ns);
  s.busy_fraction = ratio(static_cast<double>(stats.busy_ns), duration_ns);
  s.swap_out_bytes = stats.swap_out_bytes;
  s.swap_in_bytes = stats.swap_in_bytes;
  s.swap_bytes = s.swap_out_bytes + s.swap_in_bytes;
  s.events = stats.events;
  s.iterations = stats.iterations;
  s.workload = workload;
  return s;
}

std::array<DroppedCount, 4> dropped_by_reason(const Summary& s) {
  return {{{"too_long", s.dropped_too_long},
           {"too_large", s.dropped_too_large},
           {"over_token_budget", s.dropped_budget},
           {"never_fits", s.dropped_never_fits}}};
}

nlohmann::ordered_json summary_to_json(const Summary& s, bool with_wall) {
  nlohmann::ordered_json j;
  j["scenario"] = s.info.scenario;
  j["model"] = s.info.model;
  j["device"] = s.info.device;
  j["num_devices"] = s.info.num_devices;
  j["cost_model"] = s.info.cost_model;
  j["seed"] = s.info.seed;
  j["block_size"] = s.info.block_size;
  j["num_blocks"] = s.info.num_blocks;
  j["kv_bytes_per_block"] = s.info.kv_bytes_per_block;
  j["requests_arrived"] = s.requests_arrived;
  j["requests_completed"] = s.requests_completed;
  j["requests_dropped"] = s.requests_dropped;
  nlohmann::ordered_json dropped;
  for (const DroppedCount& d : dropped_by_reason(s)) dropped[std::string(d.reason)] = d.count;
  j["dropped"] = std::move(dropped);
  j["sim_duration_s"] = s.sim_duration_s;
  j["output_tokens_per_s"] = s.output_tokens_per_s;
  j["total_tokens_per_s"] = s.total_tokens_per_s;
  j["frontend_s"] = s.info.frontend_s;
  j["ttft_s"] = latency_json(s.ttft_s);
  j["tpot_s"] = latency_json(s.tpot_s);
  j["e2e_s"] = latency_json(s.e2e_s);
  j["queue_s"] = latency_json(s.queue_s);
  j["preemptions"] = s.preemptions;
  j["preemptions_recompute"] = s.preemptions_recompute;
  j["preemptions_swap"] = s.preemptions_swap;
  j["prefix_cache_hit_rate"] = s.prefix_cache_hit_rate;
  j["prompt_tokens"] = s.prompt_tokens;
  j["cached_prompt_tokens"] = s.cached_prompt_tokens;
  j["output_tokens"] = s.output_tokens;
  j["prefill_tokens_computed"] = s.prefill_tokens_computed;
  j["decode_tokens_computed"] = s.decode_tokens_computed;
  j["recomputed_tokens"] = s.recomputed_tokens;
  if (s.draft_tokens > 0) {
    j["speculative"] = {
        {"draft_tokens", s.draft_tokens},
        {"accepted_draft_tokens", s.accepted_draft_tokens},
        {"acceptance_rate",
         ratio(static_cast<double>(s.accepted_draft_tokens), static_cast<double>(s.draft_tokens))},
        {"tokens_per_verify_step", 1 + ratio(static_cast<double>(s.accepted_draft_tokens),
                                             static_cast<double>(s.verify_steps))}};
  }
  j["kv_usage_peak"] = s.kv_usage_peak;
  j["kv_usage_mean"] = s.kv_usage_mean;
  j["concurrency_mean"] = s.concurrency_mean;
  j["swap_bytes"] = s.swap_bytes;
  j["swap_out_bytes"] = s.swap_out_bytes;
  j["swap_in_bytes"] = s.swap_in_bytes;
  j["events"] = s.events;
  j["iterations"] = s.iterations;
  j["workload"] = {{"rows_read", s.workload.rows_read},
                   {"rows_skipped_bad", s.workload.rows_skipped_bad},
                   {"rows_failed", s.workload.rows_failed},
                   {"first_bad_row", s.workload.first_bad_row}};
  if (!s.stages.empty()) j["stages"] = stages_json(s.stages);
  if (s.extension != nullptr) s.extension->append_json(&j);
  if (with_wall) {
    j["wall_s"] = s.wall_s;
    j["events_per_s"] = ratio(static_cast<double>(s.events), s.wall_s);
    j["requests_per_wall_s"] = ratio(static_cast<double>(s.requests_arrived), s.wall_s);
  }
  return j;
}

std::vector<std::pair<std::string, nlohmann::ordered_json>> flatten_json(
    const nlohmann::ordered_json& object) {
  std::vector<std::pair<std::string, nlohmann::ordered_json>> out;
  flatten_into(object, "", &out);
  return out;
}

}  // namespace kvsim::sim
