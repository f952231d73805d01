#include "cli/engine_options.h"

#include "core/engine/engine_config.h"

namespace kvsim::cli {

void add_engine_options(CLI::App* command, EngineOptions* o) {
  command->add_option("--engine", o->engine,
                      "engine whose memory rule sizes the KV budget: vllm (V1) vllm-v0 "
                      "vllm-ascend sglang mindie (vllm on an Ascend device is vllm-ascend)");
  command->add_option("--engine-version", o->version,
                      "engine release, e.g. 0.11.0 (default: the newest kvsim models)");
  command
      ->add_option("--mem-fraction,--gpu-memory-utilization", o->mem_fraction,
                   "share of device memory the engine may use (default: the engine's)")
      ->check(CLI::Range(1e-6, 1.0));
  command
      ->add_option("--max-model-len", o->max_model_len,
                   "longest request the engine accepts (default: the model's max positions)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  command
      ->add_option("--max-num-batched-tokens", o->max_num_batched_tokens,
                   "tokens of the profile run / per iteration (default: the engine's for the "
                   "model and device)")
      ->check(CLI::Range(1u, 1u << 30));
  command
      ->add_option("--max-num-seqs", o->max_num_seqs, "sequences per batch (default: the engine's)")
      ->check(CLI::Range(1u, 1u << 20));
  command->add_option("--cuda-graph-memory", o->cuda_graph_memory,
                      "subtract | ignore the CUDA-graph estimate (default: the version's rule; "
                      "vLLM subtracts it from 0.21)");
  command->add_flag("--enforce-eager", o->enforce_eager, "no CUDA graphs are captured");
  command->add_option("--compile-cache", o->compile_cache,
                      "cold (a first launch: vLLM compiles inside its profile run) | warm (a "
                      "restart, or a kept cache); default cold");
  command->add_option("--entry-point", o->entry_point,
                      "serve (vllm serve) | llm (the LLM class): vLLM V1's batch defaults");
  command->add_option("--device-used-bytes", o->device_used_bytes,
                      "memory other processes hold on the device at start");
}

namespace {

// A two-word flag's value (core/engine/engine_config.h), or its error naming the flag.
StatusOr<bool> word_flag(const char* flag, const std::string& text,
                         StatusOr<bool> (*parse)(std::string_view)) {
  auto value = parse(text);
  if (!value.is_ok()) return Status::invalid_argument(flag + (": " + value.status().message()));
  return *value;
}

}  // namespace

StatusOr<EngineQuery> resolve_engine_query(const EngineOptions& o) {
  EngineQuery query;
  KVSIM_ASSIGN_OR_RETURN(query.kind, parse_engine_kind(o.engine.empty() ? "vllm" : o.engine));
  if (!o.version.empty()) {
    KVSIM_ASSIGN_OR_RETURN(query.version, parse_engine_version(o.version));
  }
  query.memory_utilization = o.mem_fraction;
  query.max_model_len = o.max_model_len;
  query.max_num_batched_tokens = o.max_num_batched_tokens;
  query.max_num_seqs = o.max_num_seqs;
  if (!o.cuda_graph_memory.empty()) {
    KVSIM_ASSIGN_OR_RETURN(
        query.cuda_graph_memory,
        word_flag("--cuda-graph-memory", o.cuda_graph_memory, parse_cuda_graph_memory));
  }
  query.enforce_eager = o.enforce_eager;
  if (!o.compile_cache.empty()) {
    KVSIM_ASSIGN_OR_RETURN(query.warm_compile_cache,
                           word_flag("--compile-cache", o.compile_cache, parse_compile_cache));
  }
  KVSIM_ASSIGN_OR_RETURN(query.entry_point, parse_entry_point(o.entry_point));
  query.device_used_bytes = o.device_used_bytes;
  return query;
}

}  // namespace kvsim::cli
