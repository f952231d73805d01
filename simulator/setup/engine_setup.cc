#include "simulator/setup/engine_setup.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/base/units.h"
#include "core/model/device_config.h"
#include "core/model/load_spec.h"
#include "core/model/weight_memory.h"
#include "simulator/cost/layer_kind_costs.h"
#include "simulator/setup/speculative_setup.h"

namespace kvsim::sim {
namespace {

// Limits when neither the scenario nor the engine gives one (SGLang derives its
// max_running_requests from the pool; a fixed block budget has no engine): vLLM's 256 / 2048.
constexpr uint32_t kFallbackMaxNumSeqs = 256;
constexpr uint32_t kFallbackBatchedTokens = 2048;

// The engine query of a scenario: its engine (or deployment) with the cache's memory
// utilization and the scheduler's limits where the scenario gives them. A deployment's
// utilization is the one its log measured: the set-aside was measured against it, so the
// scenario's cache.mem_fraction (a preset's 0.9, say) would move the pool away from the log's.
EngineQuery scenario_engine_query(const Scenario& s) {
  EngineQuery query = s.engine;
  if (s.cache.mem_fraction > 0 && s.deployment.empty()) {
    query.memory_utilization = s.cache.mem_fraction;
  }
  if (s.scheduler.max_model_len > 0) query.max_model_len = s.scheduler.max_model_len;
  if (s.scheduler.max_num_seqs > 0) query.max_num_seqs = s.scheduler.max_num_seqs;
  if (s.scheduler.max_num_batched_tokens > 0)
    query.max_num_batched_tokens = s.scheduler.max_num_batched_tokens;
  query.chunked_prefill = s.scheduler.chunked_prefill;
  return query;
}
constexpr double kWatermarkFraction = 0.01;  // vLLM v0 and Vidur: watermark_blocks_fraction

// cache.retention, or on a uniform sliding-window model left at full, vLLM's sliding window
// (sliding_window_retention, the rule a hybrid model's sliding group follows too).
StatusOr<std::shared_ptr<const RetentionPolicy>> resolve_retention(const Scenario& s,
                                                                   const ModelSpec& model) {
  RetentionSpec spec = s.cache.retention;
  if (spec.kind == RetentionKind::kFull && uniform_window_tokens(model) > 0) {
    KVSIM_ASSIGN_OR_RETURN(spec, sliding_window_retention(uniform_window_tokens(model)));
  }
  return std::shared_ptr<const RetentionPolicy>(make_retention_policy(spec));
}

// A hybrid model's KV cache groups (core/cache/kv_cache_coordinator.h), with what its cache manager
// does not do: swap (vLLM v1 has none) and a scenario's retention (the windows are the model's).
Status fill_cache_groups(const Scenario& s, const EngineSetup& setup, EngineConfig* e) {
  const KvCachePlan& plan = *setup.capacity.hybrid;
  const std::string model = fmt::format("model '{}' is hybrid ({})", setup.model.name,
                                        describe_layer_groups(setup.model));
  if (s.scheduler.preemption == PreemptionMode::kSwap) {
    return Status::invalid_argument(model +
                                    ": its KV cache is not swapped; use "
                                    "scheduler.preemption: recompute");
  }
  if (s.cache.retention.kind != RetentionKind::kFull) {
    return Status::invalid_argument(model +
                                    ": cache.retention must be full (its sliding "
                                    "windows are the model's own)");
  }
  KVSIM_ASSIGN_OR_RETURN(e->cache_groups, cache_group_specs(plan));
  for (const KvCacheSpec& spec : plan.specs) {
    if (spec.kind != LayerKind::kRecurrent && spec.block_size != e->cache.block_size) {
      return Status::invalid_argument(
          fmt::format("{}: an attention group's block of {} tokens differs from the pool's {}",
                      model, spec.block_size, e->cache.block_size));
    }
  }
  e->cache.num_host_blocks = 0;
  return Status::ok();
}

Status fill_engine_config(const Scenario& s, const EngineSetup& setup, EngineConfig* e) {
  const CapacityResult& capacity = setup.capacity;
  uint64_t num_blocks = s.cache.num_blocks_override;
  if (num_blocks == 0) {
    if (!capacity.num_blocks || *capacity.num_blocks < 2) {  // block 0 is the null block
      return Status::invalid_argument(
          "no KV block fits: '" + setup.model.name + "' on " + std::to_string(s.num_devices) +
          " x '" + setup.device.name +
          "' leaves no memory for the KV cache (what the engine sets aside - weights, "
          "activation peak, non-torch memory - exceeds memory x mem_fraction); raise "
          "num_devices or mem_fraction");
    }
    num_blocks = *capacity.num_blocks;
  }
  if (num_blocks > kMaxNumBlocks) {
    return Status::invalid_argument("the pool of " + std::to_string(num_blocks) +
                                    " blocks is larger than the cache manager's limit; raise "
                                    "cache.block_size");
  }
  e->cache.num_blocks = static_cast<uint32_t>(num_blocks);
  e->cache.block_size = capacity.block_size;
  e->cache.eviction = s.cache.caches_prefixes() ? s.cache.eviction : EvictionKind::kNone;
  e->cache.bytes_per_block = capacity.kv_bytes_per_block;
  const double host_blocks = std::floor(s.cache.host_swap_gib * kBytesPerGiB /
                                        static_cast<double>(capacity.kv_bytes_per_block));
  e->cache.num_host_blocks = static_cast<uint32_t>(
      std::min(host_blocks, static_cast<double>(std::numeric_limits<uint32_t>::max())));
  if (capacity.hybrid) KVSIM_RETURN_IF_ERROR(fill_cache_groups(s, setup, e));
  KVSIM_ASSIGN_OR_RETURN(std::shared_ptr<const RetentionPolicy> retention,
                         resolve_retention(s, setup.model));
  SchedulerLimits& limits = e->scheduler;
  limits.policy = s.scheduler.policy;
  limits.reserve_full_prompt = s.scheduler.reserve_full_prompt;
  // vLLM v0's and Vidur's admissions leave 1% of the pool free (watermark 0.01); v1 has none.
  if (s.scheduler.policy != SchedulerPolicy::kVllm) {
    limits.watermark_blocks =
        static_cast<uint32_t>(static_cast<double>(num_blocks) * kWatermarkFraction);
  }
  limits.max_num_seqs = s.scheduler.max_num_seqs;
  limits.max_num_batched_tokens = s.scheduler.max_num_batched_tokens;
  if (setup.engine_budget) {
    // The engine's resolved settings (the scenario's where it gave them).
    if (setup.engine_budget->max_num_seqs > 0)
      limits.max_num_seqs = setup.engine_budget->max_num_seqs;
    if (setup.engine_budget->max_num_batched_tokens > 0)
      limits.max_num_batched_tokens = setup.engine_budget->max_num_batched_tokens;
  }
  if (limits.max_num_seqs == 0) limits.max_num_seqs = kFallbackMaxNumSeqs;
  if (limits.max_num_batched_tokens == 0) limits.max_num_batched_tokens = kFallbackBatchedTokens;
  limits.chunked_prefill = s.scheduler.chunked_prefill;
  if (s.speculative.present) limits.speculative = s.speculative.config;
  limits.preemption = s.scheduler.preemption;
  limits.prefix_caching = s.cache.caches_prefixes();
  KVSIM_ASSIGN_OR_RETURN(limits.cost_window_tokens, cost_window_tokens(setup.model));
  if (const auto window = retention->window_tokens()) {
    limits.attention_sink_tokens = retention->sink_tokens();
    limits.attention_window_tokens = *window;
    e->cache.retention = std::move(retention);  // "full" stays null: nothing to trim
  }
  // The engine's context: the one it resolved (a deployment's, the scheduler's, else the
  // model's), or without an engine the scheduler's, else the model's.
  e->max_model_len = s.scheduler.max_model_len > 0 ? s.scheduler.max_model_len
                                                   : setup.model.max_position_embeddings;
  if (setup.engine_budget && setup.engine_budget->max_model_len > 0) {
    e->max_model_len = setup.engine_budget->max_model_len;
  }
  e->host_link_bytes_per_s = setup.device.host_link_gbps * static_cast<double>(kGB);
  e->frontend_ns = std::llround(s.cost_model.frontend_s * kNsPerS);
  return Status::ok();
}

// The scenario's layout against the model, the error at the parallel: field it names
// ("parallel.ep (--ep) ...", core/engine/parallel_layout.h), else at the section.
Status check_parallel_layout(const Scenario& s, const ModelSpec& model) {
  const Status layout = validate_parallel_layout(model, s.parallel);
  const ConfigNode* node = s.tree.find("parallel");
  if (layout.is_ok() || node == nullptr) return layout;
  for (const char* key : {"tp", "dp", "ep", "pp"}) {
    const ConfigNode* field = node->find(key);
    if (field != nullptr && layout.message().rfind(std::string("parallel.") + key, 0) == 0) {
      return error_at(field->mark(), layout.message());
    }
  }
  return error_at(node->mark(), layout.message());
}

}  // namespace

StatusOr<ModelSpec> resolve_model(const ConfigNode& node) {
  if (node.is_map()) return model_from_config(node, "inline-model");
  return load_model(node.text());
}

StatusOr<DeviceSpec> resolve_device(const ConfigNode& node) {
  if (node.is_map()) return device_from_config(node, "inline-device");
  return load_device(node.text());
}

StatusOr<EngineSetup> prepare_engine_setup(const Scenario& s) {
  EngineSetup setup;
  setup.scenario = s;
  KVSIM_ASSIGN_OR_RETURN(setup.model, resolve_model(s.model));
  KVSIM_ASSIGN_OR_RETURN(setup.device, resolve_device(s.device));
  if (setup.model.num_params == 0) {
    return Status::invalid_argument("model '" + setup.model.name +
                                    "' has no num_params: the simulator needs the weights' size");
  }
  if (s.num_devices > 1 && !(setup.device.interconnect_gbps > 0)) {
    return Status::invalid_argument("num_devices > 1 needs the device's interconnect_gbps");
  }
  KVSIM_RETURN_IF_ERROR(check_parallel_layout(s, setup.model));
  CapacityQuery& q = setup.capacity_query;
  q.kv.dtype = s.cache.dtype;
  q.kv.quant_group = s.cache.quant_group;
  q.weight_dtype = run_weight_dtype(setup.model, s.weight_dtype);
  q.block_size = s.cache.block_size;
  q.tp = s.num_devices;
  // One DP rank's pool (simulator/scenario/scenario.h); the layout's model checks name the field.
  q.dp = s.parallel.dp;
  q.ep = s.parallel.ep;
  q.pp = s.parallel.pp;
  setup.engine_query = scenario_engine_query(s);
  ModelSpec memory_model = setup.model;  // with a drafter's weights and KV layers
  if (s.speculative.present) {
    KVSIM_ASSIGN_OR_RETURN(setup.draft_model, draft_cost_model_spec(setup.model, s.speculative));
    memory_model = draft_memory_model(setup.model, *setup.draft_model, s.speculative);
  }
  KVSIM_ASSIGN_OR_RETURN(CapacityPlan plan,
                         plan_capacity(memory_model, &setup.device, q, setup.engine_query));
  setup.capacity_query = plan.query;
  setup.capacity = plan.capacity;
  if (setup.draft_model) {
    KVSIM_ASSIGN_OR_RETURN(setup.draft_capacity, compute_capacity(*setup.draft_model, &setup.device,
                                                                  setup.capacity_query));
    KVSIM_ASSIGN_OR_RETURN(setup.target_capacity,
                           compute_capacity(setup.model, &setup.device, setup.capacity_query));
  }
  setup.engine_budget = plan.engine;
  KVSIM_RETURN_IF_ERROR(fill_engine_config(s, setup, &setup.engine));
  setup.execution = execution_profile(setup.engine_query, setup.device, s.num_devices,
                                      setup.engine.scheduler.max_num_seqs);
  // The engine schedules ahead as its profile does (a generic execution does not).
  setup.engine.async_scheduling =
      with_cuda_graphs(setup.execution, s.cost_model.cuda_graphs).overlap_cpu;
  return setup;
}

}  // namespace kvsim::sim
