// EngineMemory: what an inference engine sets aside on each device before its KV cache, and
// so the KV budget a pool of that engine gets. Each engine's rule follows its own code, term by
// term (docs/engine_memory.md quotes the lines, with repository, path and version):
//
//   vllm (V1, 0.8 -> 0.31)   available = total x gpu_memory_utilization - weights
//                              - activation peak (profile run of max_num_batched_tokens tokens)
//                              - non-torch increase (cuBLAS/NCCL/attention workspaces)
//                              - CUDA-graph estimate (subtracted by default from 0.21; 0.18-0.20
//                                estimate it, subtracted only with VLLM_MEMORY_PROFILER_
//                                ESTIMATE_CUDAGRAPHS=1; before 0.18 graphs come out of the
//                                1 - utilization slack)
//                            <= 0.9.0 also charges the CUDA context and other processes'
//                            memory (non_torch = total - free - torch_allocated); >= 0.9.1
//                            charges none of it but refuses to start when total - in use <
//                            total x utilization (an error naming the largest utilization
//                            that starts); model runner v2 (>= 0.25 dense, >= 0.29 all): a
//                            lighter sampler, a cold torch.compile's peak, no graph estimate
//                            before 0.29
//   vllm-v0 (0.4 -> 0.10)    the same budget; profiling batch max(max_model_len, 2048) tokens
//                            unless chunked prefill (auto-enabled above 32K context from 0.6)
//   vllm-ascend              <= 0.14: total x util - (torch peak + non-torch incl. other
//                            processes); >= 0.15: vLLM V1's profiler and start check; from
//                            0.18.0rc1 the 310P worker subtracts what was in use at start
//                            again (#14274) and halves the result (kv_memory_factor 0.5)
//                            after subtracting non-torch memory "cleared by empty_cache"
//   sglang                   available = free memory at start x mem_fraction_static - weights
//                            (activations and graphs live in the 1 - mem_fraction_static rest)
//   mindie                   available = total x NPU_MEMORY_FRACTION - warm-up peak
//                            (weights + activations) - RESERVED_MEMORY_GB
//
// The budget is per device (every tensor-parallel rank computes its own and vLLM takes the
// minimum; kvsim's ranks are identical). Blocks come from it in one place,
// core/engine/capacity.h's compute_capacity() (floor(budget / bytes per block)), so `kvsim
// capacity`, the GUI and the simulator agree. Pure functions; no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/engine/capacity.h"
#include "core/model/device_spec.h"
#include "core/model/model_spec.h"

namespace kvsim {

enum class EngineKind : uint8_t {
  kVllm,        // vLLM V1 engine (0.8 and later), NVIDIA
  kVllmV0,      // vLLM V0 engine (0.4 - 0.10)
  kVllmAscend,  // vLLM on Ascend NPUs through the vllm-ascend plugin
  kSglang,      // SGLang
  kMindie,      // Huawei MindIE-LLM
};

std::string_view engine_kind_name(EngineKind kind);  // "vllm", "vllm-v0", "vllm-ascend", ...
StatusOr<EngineKind> parse_engine_kind(std::string_view name);  // unknown names list the valid
std::vector<std::string> engine_kind_names();

// major.minor.patch; release candidates and dev builds count as their release ("0.18.0rc1" is
// 0.18.0: the 310P rule arrived in rc1 and is in the release).
struct EngineVersion {
  uint32_t major = 0;
  uint32_t minor = 0;
  uint32_t patch = 0;
  auto operator<=>(const EngineVersion&) const = default;
};

// Accepts "0.11", "0.11.0", "v0.9.0rc2", "0.9.1.dev705+g01220ce89".
StatusOr<EngineVersion> parse_engine_version(std::string_view text);
std::string engine_version_name(const EngineVersion& version);  // "0.11.0"
// The release whose rules an engine without a version follows (the newest kvsim models).
EngineVersion newest_engine_version(EngineKind kind);

// vLLM V1 picks its batch defaults by entry point (vllm/engine/arg_utils.py get_batch_defaults).
enum class EntryPoint : uint8_t {
  kServer,   // `vllm serve` (the OpenAI-compatible API server)
  kOffline,  // the LLM class
};
std::string_view entry_point_name(EntryPoint entry);  // "serve", "llm"
StatusOr<EntryPoint> parse_entry_point(std::string_view name);

// The engine and its settings. Zero / empty fields take what that engine would choose for the
// model and device.
struct EngineQuery {
  EngineKind kind = EngineKind::kVllm;
  std::optional<EngineVersion> version;  // empty: newest_engine_version(kind)
  // gpu_memory_utilization (vLLM), mem_fraction_static (SGLang), NPU_MEMORY_FRACTION (MindIE)
  std::optional<double> memory_utilization;
  uint64_t max_model_len = 0;             // tokens; 0: the model's max_position_embeddings
  uint32_t max_num_batched_tokens = 0;    // 0: the engine's default (SGLang: chunked_prefill_size)
  uint32_t max_num_seqs = 0;              // 0: the engine's default
  std::optional<bool> chunked_prefill;    // empty: the engine's default
  std::optional<bool> cuda_graph_memory;  // subtract the graph estimate; empty: version's rule
  bool enforce_eager = false;             // no graphs are captured
  // vLLM's torch.compile cache already holds this configuration (a restart, or a mounted cache):
  // no compile runs inside the profile run. kvsim's default is a first launch, cold.
  bool warm_compile_cache = false;
  EntryPoint entry_point = EntryPoint::kServer;
  // Memory in use on the device when the engine starts: other processes' (--device-used-bytes),
  // or a log's total - free at the start snapshot, which also holds the runtime's own.
  uint64_t device_used_bytes = 0;
  std::optional<uint64_t> total_memory_bytes;  // the total the engine reads; empty: the device's
  // A deployment's measured set-aside (kvsim calibrate): replaces the modelled terms.
  std::optional<uint64_t> measured_set_aside_bytes;
};

// One amount taken out of the requested memory before the KV cache.
// What a set-aside term is, whatever the engine calls it (the GUI draws one segment per kind).
enum class SetAsideKind : uint8_t {
  kWeights,
  kActivation,  // the profile run's activation peak
  kNonTorch,    // non-torch memory: CUDA/CANN context, communication buffers, other processes
  kGraphs,      // captured CUDA graphs
  kMeasured,    // a deployment file's measured set-aside, in place of all the others
};

struct SetAsideTerm {
  std::string name;     // "weights", "activation peak", "non-torch memory", "CUDA graphs", ...
  uint64_t bytes = 0;   // per device
  std::string formula;  // the formula with this query's numbers
  std::string source;   // where the engine computes it (file, function, version)
  SetAsideKind kind = SetAsideKind::kNonTorch;
};

struct EngineBudget {
  EngineKind kind = EngineKind::kVllm;
  EngineVersion version;
  uint64_t total_bytes = 0;          // device memory as the engine reads it
  std::string total_source;          // where total_bytes comes from (see engine_total_source)
  double memory_utilization = 0;     // resolved (the engine's default when not given)
  bool utilization_default = false;  // memory_utilization is the engine's default
  uint64_t requested_bytes = 0;      // the share the engine may use (see requested_formula)
  std::string requested_formula;
  std::string requested_source;
  std::vector<SetAsideTerm> terms;  // subtracted from requested_bytes, in the engine's order
  uint64_t set_aside_bytes = 0;     // their sum
  bool measured = false;            // terms is one measured set-aside (a deployment)
  double kv_factor = 1.0;           // vllm-ascend's 310P halving
  std::string kv_factor_source;     // empty when kv_factor is 1
  uint64_t kv_budget_bytes = 0;     // floor((requested - set-aside) x kv_factor), 0 if negative
  bool budget_negative = false;     // the set-aside exceeds the requested memory
  // The engine's settings as resolved for this model and device.
  uint64_t max_model_len = 0;
  uint32_t max_num_batched_tokens = 0;
  uint32_t max_num_seqs = 0;
  uint32_t graph_capture_size = 0;  // the largest CUDA/NPU-graph capture size (vLLM's engines)
  bool chunked_prefill = true;
  bool graphs_subtracted = false;
  uint32_t block_size = 0;         // the engine's default block (SGLang: page) size on this device
  std::vector<std::string> notes;  // why a term is absent or what a version does differently
};

// Validates the query (utilization in (0, 1], a version the engine has, the model's
// num_params) and computes every term. `capacity` gives the weight dtype and TP.
StatusOr<EngineBudget> compute_engine_budget(const ModelSpec& model, const DeviceSpec& device,
                                             const CapacityQuery& capacity,
                                             const EngineQuery& query);

// kvsim's CUDA/NPU-graph estimate for the model (what the graph term subtracts when it does):
// layers x 18 MiB, 37.5 MiB for MoE layers, at a largest capture size of 512 (fitted to logs;
// core/engine/engine_memory_rules.h), in proportion to `largest_capture_size` (the graphs share one
// memory pool, whose size the largest batch sets).
uint64_t graph_estimate_bytes(const ModelSpec& model, uint32_t largest_capture_size);

// What the engine's start-up log reports for a pool of `num_blocks` blocks of `block_size`.
struct EngineKvReport {
  uint64_t kv_tokens = 0;      // "GPU KV cache size: N tokens" / SGLang "#tokens: N"
  double max_concurrency = 0;  // "Maximum concurrency for L tokens per request: Cx"; 0: none
  std::string tokens_formula;
  std::string concurrency_formula;
};
EngineKvReport engine_kv_report(const EngineBudget& budget, uint64_t num_blocks,
                                uint32_t block_size);

}  // namespace kvsim
