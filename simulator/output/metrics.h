// Metrics: the summary of a run (summary.json, `kvsim simulate --json`) and how it is built.
//
// MetricsCollector observes the engine and keeps per-request latencies of finished requests
// (4 doubles each: 32 MB for a million requests); everything else comes from EngineStats.
//   frontend_s  what a client sees beyond the engine per request (cost_model.frontend_s);
//               ttft_s and e2e_s are a client's: the engine's plus it
//   ttft_s    first token time - arrival (queueing + prefill) + frontend_s
//   tpot_s    (finish - first token) / (output tokens - 1), requests with >= 2 output tokens
//   e2e_s     finish - arrival + frontend_s
//   queue_s   first scheduled - arrival
//   each as {mean, p50, p90, p99}; percentiles interpolate linearly between order statistics
//   (numpy's default): p-th = x[floor(h)] + (h - floor(h)) (x[floor(h)+1] - x[floor(h)]),
//   h = (n - 1) p.
//   sim_duration_s          the simulated time when the last request finished (arrivals from 0)
//   output_tokens_per_s     output tokens of finished requests / sim_duration_s
//   total_tokens_per_s      (prompt + output tokens) of finished requests / sim_duration_s
//   prefix_cache_hit_rate   prompt tokens served from the cache at first admission / prompt
//                           tokens, over finished requests
//   kv_usage_peak / _mean   used blocks / usable blocks (the pool's less its null block, as
//                           vLLM's usage): the most at once, and the time average over
//                           [0, sim_duration]
//   concurrency_mean        time-average number of requests in the system (arrived, not done)
//   swap_bytes              bytes moved over the host link, both directions
// A staged workload adds `stages`, each stage's figures (simulator/output/stage_metrics.h).
// A cluster adds its own fields (simulator/cluster/cluster_summary.h):
// prefix_cache_hit_rate_by_tier, kv_transfer_bytes, kv_transfer_time_s, per-replica throughput,
// per-tier and per-link figures. wall_s (and the rates per wall second) are kept out of
// summary.json so that the same scenario and seed give byte-identical files; `--json` prints them.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "simulator/engine/engine.h"
#include "simulator/engine/sim_observer.h"
#include "simulator/output/latency_samples.h"

namespace kvsim::sim {

// {mean, p50, p90, p99} as JSON.
nlohmann::ordered_json latency_json(const LatencySummary& summary);

// Facts about the configuration, copied into the summary.
struct RunInfo {
  std::string scenario;
  std::string model;
  std::string device;
  std::string cost_model;
  uint64_t seed = 0;
  uint32_t num_devices = 1;
  uint32_t block_size = 0;
  uint64_t num_blocks = 0;  // the pool's blocks, null block included (kvsim capacity's count)
  uint64_t kv_bytes_per_block = 0;
  uint64_t num_usable_blocks = 0;  // num_blocks less each pool's null block (not written)
  double frontend_s = 0;           // a client's time beyond the engine's (cost_model.frontend_s)
};

// What a run of several engines adds to the summary: a cluster's replicas, tiers and KV links
// (simulator/cluster/cluster_summary.h implements it; the output layer knows only this).
class SummaryExtension {
 public:
  virtual ~SummaryExtension() = default;
  // Adds its fields to the summary's JSON (after the common ones).
  virtual void append_json(nlohmann::ordered_json* json) const = 0;
  // Its lines for `kvsim simulate`'s text output.
  virtual std::string text() const = 0;
};

// One load stage of a staged workload (simulator/output/stage_metrics.h).
struct StageSummary {
  double rate_per_s = 0;  // the stage's nominal arrival rate
  double start_s = 0, end_s = 0;
  uint64_t completed = 0, dropped = 0;
  LatencySummary ttft_s, tpot_s, e2e_s;
  double output_tokens_per_s = 0;
};

struct Summary {
  RunInfo info;
  uint64_t requests_arrived = 0;
  uint64_t requests_completed = 0;
  uint64_t requests_dropped = 0;
  uint64_t dropped_too_long = 0, dropped_too_large = 0, dropped_budget = 0, dropped_never_fits = 0;
  double sim_duration_s = 0;
  double output_tokens_per_s = 0;
  double total_tokens_per_s = 0;
  LatencySummary ttft_s, tpot_s, e2e_s, queue_s;
  uint64_t preemptions = 0, preemptions_recompute = 0, preemptions_swap = 0;
  double prefix_cache_hit_rate = 0;
  uint64_t prompt_tokens = 0, cached_prompt_tokens = 0, output_tokens = 0;
  uint64_t prefill_tokens_computed = 0, decode_tokens_computed = 0, recomputed_tokens = 0;
  // Speculative decoding (0 without): drafts verified, accepted, and the requests' steps that
  // verified some (each yields 1 + accepted tokens). Written only when drafts were verified.
  uint64_t draft_tokens = 0, accepted_draft_tokens = 0, verify_steps = 0;
  double kv_usage_peak = 0, kv_usage_mean = 0, concurrency_mean = 0;
  // The busiest engine's share of the run spent in iterations (a cluster's busiest replica;
  // its summary.json has each replica's as replicas.<name>.busy_fraction). Not written to
  // summary.json: the text summary's reading weighs it (simulator/output/summary_reading.h).
  double busy_fraction = 0;
  uint64_t swap_bytes = 0, swap_out_bytes = 0, swap_in_bytes = 0;
  uint64_t events = 0, iterations = 0;
  WorkloadStats workload;
  std::vector<StageSummary> stages;  // a staged workload's stages; empty otherwise
  // A cluster's replicas, tiers and KV transfers (null for one engine: summary.json then has
  // none of their fields).
  std::shared_ptr<const SummaryExtension> extension;
  double wall_s = 0;  // not part of summary.json
};

class MetricsCollector final : public SimObserver {
 public:
  void on_request_finished(const RequestRecord& request) override;

  // Builds the summary (sorts the latencies kept; call once, after the run).
  Summary build(const RunInfo& info, const EngineStats& stats, const WorkloadStats& workload);

 private:
  LatencySamples ttft_s_, tpot_s_, e2e_s_, queue_s_;
  uint64_t prompt_tokens_ = 0, cached_prompt_tokens_ = 0, output_tokens_ = 0;
};

// The summary's dropped requests by reason, with summary.json's names, in its order.
struct DroppedCount {
  std::string_view reason;  // "too_long", "too_large", "over_token_budget", "never_fits"
  uint64_t count = 0;
};
std::array<DroppedCount, 4> dropped_by_reason(const Summary& summary);

// The summary as JSON: every field above; wall_s, events_per_s and requests_per_wall_s only
// when `with_wall` (stdout), never in summary.json.
nlohmann::ordered_json summary_to_json(const Summary& summary, bool with_wall);

// Flattens nested objects into dotted keys ("ttft_s.p99"), leaves in document order
// (summary_to_json keeps field order); for tables of many runs (sweeps).
std::vector<std::pair<std::string, nlohmann::ordered_json>> flatten_json(
    const nlohmann::ordered_json& object);

}  // namespace kvsim::sim
