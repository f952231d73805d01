// The `engine:` section of scenarios and deployment files, read into an EngineQuery and
// written back:
//
//   engine: vllm                      # a name: vllm vllm-v0 vllm-ascend sglang mindie
//   engine:
//     name: vllm
//     version: 0.11.0                 # default: the newest release kvsim models
//     entry_point: serve              # serve | llm (vLLM V1's batch defaults differ)
//     cuda_graph_memory: subtract     # subtract | ignore; default: the version's rule
//     enforce_eager: false
//     compile_cache: cold             # cold (a first launch) | warm (a kept compile cache)
//     device_used_bytes: 0            # memory other processes hold on the device
//   # deployment files only (a scenario has them in cache: and scheduler:):
//     memory_utilization: 0.9
//     max_model_len: 32768
//     max_num_batched_tokens: 2048
//     max_num_seqs: 256
//     chunked_prefill: true
// Unknown keys and names are errors naming file:line:column and the valid ones.
#pragma once

#include "core/base/status.h"
#include "core/config/config_node.h"
#include "core/engine/engine_memory.h"

namespace kvsim {

enum class EngineConfigKeys {
  kScenario,    // the engine and its memory options
  kDeployment,  // also the settings a scenario keeps in cache: and scheduler:
};

Status read_engine_config(const ConfigNode& node, EngineConfigKeys keys, EngineQuery* out);

// The map read_engine_config(kDeployment) reads back to `query` (measured set-aside and total
// memory excluded: a deployment file holds them at its top level).
ConfigNode engine_config_node(const EngineQuery& query);

// The two-word settings, shared with the command line: "subtract" | "ignore" (whether vLLM's
// CUDA-graph estimate is subtracted) and "warm" | "cold" (EngineQuery::warm_compile_cache).
StatusOr<bool> parse_cuda_graph_memory(std::string_view text);
StatusOr<bool> parse_compile_cache(std::string_view text);

}  // namespace kvsim
