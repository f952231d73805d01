// Options shared by the commands that ask an engine's KV budget (capacity, calibrate):
// --engine, --engine-version, --mem-fraction, --max-model-len, --max-num-batched-tokens,
// --max-num-seqs, --cuda-graph-memory, --enforce-eager, --compile-cache, --entry-point,
// --device-used-bytes.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "core/base/status.h"
#include "core/engine/engine_memory.h"

namespace kvsim::cli {

struct EngineOptions {
  std::string engine = "vllm";  // "" = vllm (calibrate: the log's engine)
  std::string version;          // empty: the newest release kvsim models
  std::optional<double> mem_fraction;
  uint64_t max_model_len = 0;
  uint32_t max_num_batched_tokens = 0;
  uint32_t max_num_seqs = 0;
  std::string cuda_graph_memory;  // "", "subtract", "ignore"
  bool enforce_eager = false;
  std::string compile_cache;  // "", "cold", "warm"
  std::string entry_point = "serve";
  uint64_t device_used_bytes = 0;
};

void add_engine_options(CLI::App* command, EngineOptions* options);

// The query the options describe.
StatusOr<EngineQuery> resolve_engine_query(const EngineOptions& options);

}  // namespace kvsim::cli
