// Scenario: everything one simulation needs, as read from a scenario preset (YAML).
//
// A scenario is loaded in two steps so that batch tools can work on the tree:
//   1. load_scenario_tree(): the preset (by name: presets/scenarios/<name>.yaml embedded in the
//      binary; or a path) as a ConfigNode tree, with `--set key=value` overrides applied at
//      dotted paths ("cache.block_size=512"); an override's mark names it in messages.
//   2. scenario_from_config(): the typed, range-checked Scenario. Unknown keys are errors that
//      list the valid ones; every message names file:line:column (or the --set override).
// Paths in a scenario file (model/device files, traces, calibration tables) are relative to
// the file's folder; "data:..." paths resolve under the shared data folder (core/base/data_dir.h).
//
// The fields (defaults in the structs below):
//   name, description, seed
//   model, device            preset names, paths, or inline maps of the preset fields
//   num_devices              tensor-parallel devices sharing the model (weights, KV heads)
//   parallel: tp dp ep pp    the parallel layout (core/engine/parallel_layout.h): tp devices per
//                            stage (num_devices is its shorthand; both given must agree), dp
//                            attention data-parallel ranks (attention TP = tp / dp), ep expert
//                            ranks, pp pipeline stages; default 1 each. The simulated engine
//                            is one DP rank, its pool one rank's; in a cluster each replica is
//                            one DP rank and a replica group may give its own parallel:
//                            (simulator/scenario/cluster_scenario.h)
//   weight_dtype             dtype of the weights (default: the model's own when a config.json's
//                            torch_dtype says float16 or bfloat16, else fp16)
//   engine                   whose memory rule sizes the KV pool (core/engine/engine_config.h):
//                            a name (vllm, the default; vllm-v0 vllm-ascend sglang mindie)
//                            or a map {name, version, entry_point, cuda_graph_memory, ...}
//   deployment               a file from `kvsim calibrate --from-log` (core/engine/deployment.h):
//                            model, device, num_devices, weight_dtype, engine and the measured
//                            set-aside; the scenario then names none of those itself, and its
//                            cache.dtype / block_size and scheduler limits default to the file's.
//                            Its measured figures win: cache.mem_fraction is not applied (the
//                            log's utilization is); `kvsim simulate --deployment FILE` sets it
//                            and clears the five fields
//   cache:      block_size dtype quant_group mem_fraction num_blocks_override prefix_caching
//               eviction retention host_swap_gib   (mem_fraction: the engine's
//               gpu_memory_utilization / mem_fraction_static; 0 = the engine's default)
//   scheduler:  policy max_model_len max_num_seqs max_num_batched_tokens chunked_prefill preemption
//               reserve_full_prompt   (limits: 0 = what the engine would choose for the
//               model and device)
//   workload:   trace trace_format skip_bad_rows synthetic{...} max_requests time_scale rate
//               prefix_tokens max_concurrency (the client's limit on requests out: a
//               benchmark's --max-concurrency; with synthetic arrival burst, a closed loop)
//   cost_model: kind (operators roofline profile table); operators: fit cuda_graphs
//               calibration (YAML) parameters{...} expert_imbalance (ep > 1); roofline:
//               compute_efficiency bandwidth_efficiency interconnect_efficiency
//               iteration_overhead_s allreduce_latency_s; profile: profiles topology; table:
//               calibration (CSV)
//   output:     dir requests_csv timeseries timeseries_interval_s chrome_trace
//   speculative: method num_speculative_tokens acceptance draft_model seed
//               (simulator/scenario/speculative_section.h; absent: none)
//   cluster:, disaggregation:, tiers:   replicas, routers, xPyD and the tiered KV pool
//               (simulator/scenario/cluster_scenario.h); any of them makes the run a cluster's
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/cache/eviction_policy.h"
#include "core/cache/retention_policy.h"
#include "core/config/config_node.h"
#include "core/engine/engine_memory.h"
#include "core/engine/parallel_layout.h"
#include "core/model/dtype.h"
#include "simulator/cost/cost_model_config.h"
#include "simulator/engine/scheduler_limits.h"
#include "simulator/scenario/cluster_scenario.h"
#include "simulator/scenario/speculative_section.h"
#include "simulator/workload/synthetic_workload.h"
#include "simulator/workload/trace_reader.h"

namespace kvsim::sim {

struct CacheSection {
  uint32_t block_size = 0;           // tokens per block; 0 = the device's default
  DType dtype = DType::kFp16;        // KV storage dtype
  uint32_t quant_group = 0;          // elements per fp16 scale + zero group; 0 = none
  double mem_fraction = 0;           // share of device memory the engine may use; 0: its default
  uint64_t num_blocks_override = 0;  // 0 = the capacity planner's block count
  bool prefix_caching = true;        // reuse cached prefix blocks across requests
  // The order cached free blocks are reused (core/cache/eviction_policy.h): lru, lfu, fifo, or
  // none (no prefix caching, as prefix_caching: false).
  EvictionKind eviction = EvictionKind::kLru;
  RetentionSpec retention;     // per-sequence retention (core/cache/retention_policy.h): full
  double host_swap_gib = 4.0;  // host tier for swap preemption, GiB (vLLM swap_space 4)

  // Prefix caching on: prefix_caching and an eviction policy other than none.
  bool caches_prefixes() const { return prefix_caching && eviction != EvictionKind::kNone; }
};

struct SchedulerSection {
  SchedulerPolicy policy = SchedulerPolicy::kVllm;  // vllm, vllm-v0 or sarathi
  uint64_t max_model_len = 0;           // longest prompt + output; 0: the engine's (model's)
  uint32_t max_num_seqs = 0;            // requests in one batch; 0: the engine's default
  uint32_t max_num_batched_tokens = 0;  // tokens computed per iteration; 0: the engine's
  bool chunked_prefill = true;          // split long prompts over iterations (vllm-v0: false)
  PreemptionMode preemption = PreemptionMode::kRecompute;
  bool reserve_full_prompt = true;  // admit only when the whole prompt fits (vLLM v1 default)
};

struct WorkloadSection {
  std::string trace;  // trace file; empty = synthetic
  TraceFormat trace_format = TraceFormat::kAuto;
  bool skip_bad_rows = false;    // skip and count malformed rows
  SyntheticConfig synthetic;     // used when trace is empty
  uint64_t max_requests = 0;     // 0 = all
  double time_scale = 1.0;       // multiplies arrival times (> 1: slower)
  double rate = 0;               // requests/s override (0 = none); wins over
                                 // time_scale; for traces: rescales arrivals
  uint32_t prefix_tokens = 512;  // csv traces: shared tokens of a prefix_group
  uint32_t max_concurrency = 0;  // > 0: the client keeps at most this many requests out
};

struct OutputSection {
  std::string dir;                     // where files go; empty = no files (unless --out)
  bool requests_csv = true;            // DIR/requests.csv
  bool timeseries = true;              // DIR/timeseries.csv
  double timeseries_interval_s = 1.0;  // simulated seconds between time-series rows
  std::string chrome_trace;            // Chrome trace-event JSON file; empty = none
};

struct Scenario {
  std::string name;         // preset name or file stem
  std::string description;  // one line, shown by `kvsim presets`
  uint64_t seed = 0;        // seeds every random choice of the workload
  ConfigNode model;         // scalar: preset name or path; map: inline preset
  ConfigNode device;
  uint32_t num_devices = 1;
  ParallelLayout parallel;  // parallel:, its tp always num_devices
  // The weights' dtype as the scenario states it; empty: the model's own 16-bit dtype, else
  // fp16 (run_weight_dtype, core/model/weight_memory.h). Read what a run used from
  // EngineSetup::capacity_query.weight_dtype, never from here.
  std::optional<DType> weight_dtype;
  EngineQuery engine;      // kind and options (and a deployment's measured set-aside)
  std::string deployment;  // the deployment file read, resolved; empty: none
  CacheSection cache;
  SchedulerSection scheduler;
  WorkloadSection workload;
  CostModelConfig cost_model;
  OutputSection output;
  ClusterSection cluster;
  DisaggregationSection disaggregation;
  TiersSection tiers;
  SpeculativeSection speculative;
  ConfigNode tree;  // the tree it was read from (overrides applied)

  // Runs as a cluster (simulator/cluster/cluster.h) rather than one engine.
  bool is_cluster() const { return cluster.present || disaggregation.present || tiers.present; }
};

// A model:, device: or link: reference as given (a map, or a preset name), a relative path
// made relative to `base_dir` (the scenario file's folder).
StatusOr<ConfigNode> read_preset_ref(const ConfigNode& node, const std::string& key,
                                     const std::string& base_dir);

// A parallel: {tp, dp, ep, pp} map at `what` ("parallel", "cluster.replicas[1].parallel"): tp
// defaults to `num_devices` (its shorthand) and, when num_devices was given too (devices_given),
// must agree with it; dp and ep divide tp. What needs the model (ep | experts, pp | layers) is
// checked when the engine is set up (core/engine/parallel_layout.h).
StatusOr<ParallelLayout> read_parallel_layout(const ConfigNode& node, const std::string& what,
                                              uint32_t num_devices, bool devices_given);

// Applies one "dotted.key=value" override to the tree. The value is a scalar; "null" clears.
Status apply_override(ConfigNode* tree, std::string_view assignment);

// The preset tree (embedded name or path) with the overrides applied in order.
StatusOr<ConfigNode> load_scenario_tree(std::string_view name_or_path,
                                        const std::vector<std::string>& overrides);

// The typed scenario. `base_dir`: folder relative paths are resolved against ("" = as given).
StatusOr<Scenario> scenario_from_config(const ConfigNode& tree, const std::string& name,
                                        const std::string& base_dir);

// Both steps: load_scenario_tree then scenario_from_config (base_dir = the file's folder).
StatusOr<Scenario> load_scenario(std::string_view name_or_path,
                                 const std::vector<std::string>& overrides);

}  // namespace kvsim::sim
