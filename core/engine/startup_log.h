// StartupLog: what an engine's start-up log says about its memory, read from the log (or the
// fragment of it that a user posted): vLLM 0.4 - V1 (0.28), vllm-ascend and SGLang.
//
// The parser knows the lines each version prints (quoted in docs/engine_memory.md), e.g.
//   vLLM V1   "Model loading took 3.4244 GiB", "Available KV cache memory: 35.34 GiB",
//             "GPU KV cache size: 463,136 tokens", "Maximum concurrency for 131,072 tokens per
//             request: 3.53x", "Free memory on device (43.93/44.42 GiB) on startup. Desired GPU
//             memory utilization is (0.9, 39.98 GiB). Actual usage is 27.72 GiB for weight,
//             1.4 GiB for peak activation, 0.21 GiB for non-torch memory, and 3.45 GiB for
//             CUDAGraph memory", "Graph capturing finished in 5 secs, took 0.72 GiB"
//   vLLM V0   "Loading model weights took 14.9888 GB", "# GPU blocks: 1952, # CPU blocks: 2048",
//             "Memory profiling results: total_gpu_memory=23.58GiB ...", "the current vLLM
//             instance can use total_gpu_memory (14.56GiB) x gpu_memory_utilization (0.90) =
//             13.11GiB", "model weights take 0.93GiB; non_torch_memory takes 0.11GiB; ..."
//   ascend    "Available memory: 0, total memory: 65452113920" (<= 0.14), "Available KV cache
//             memory: 0.09 GiB (halved for workspace)", "Current KV cache memory: 5.77 GiB"
//   SGLang    "Load weight end. ... avail mem=209.98 GB, mem usage=73.58 GB", "KV Cache is
//             allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB"
// and the settings a log or a pasted command line states (model, TP, utilization, max model
// length, batched tokens, sequences, dtype, quantization, enforce_eager, and whether
// torch.compile found its cache warm). "GiB" and "GB" are 2^30 bytes in all of them.
// A figure may run over a line break (a long line wrapped in a post, a command continued with a
// backslash): each line is also read joined to the next, and a match across the break counts,
// reported at its first line.
// A figure seen twice with different values (several ranks or runs) keeps the first, and a
// note says so; V1's per-worker "GPU KV cache size" and "Maximum concurrency" keep the smallest,
// since the engine unifies the workers' pools to the smallest
// (vllm/v1/core/kv_cache_utils.py unify_kv_cache_configs), and its stat logger's
// "num_gpu_blocks is: N" is that unified pool. Pure: text in, figures out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/engine/engine_memory.h"

namespace kvsim {

// A logged number and the line it came from (1-based). Memory figures are in bytes (a GiB
// figure printed with two decimals is good to +-0.005 GiB).
struct LoggedValue {
  double value = 0;
  int line = 0;
  bool exact = false;  // printed in bytes or as a count, not rounded GiB
};

struct StartupLog {
  std::optional<EngineKind> engine;
  std::string engine_evidence;                  // the line that told the engine
  std::optional<EngineVersion> version;         // printed by the log
  std::string version_text;                     // as logged ("0.9.0rc2")
  std::optional<EngineVersion> format_version;  // the oldest release printing its lines
  std::string model;                            // as logged: a Hugging Face name or a path
  std::string dtype;                            // "bfloat16", "float16"
  std::string quantization;                     // "fp8", "awq", ...
  std::optional<LoggedValue> tp;
  std::optional<LoggedValue> memory_utilization;
  std::optional<LoggedValue> max_model_len;
  std::optional<LoggedValue> max_num_batched_tokens;
  std::optional<LoggedValue> max_num_seqs;
  std::optional<LoggedValue> enforce_eager;       // 1: "enforce_eager=True" or --enforce-eager
  std::optional<LoggedValue> warm_compile_cache;  // 1: "Directly load ..." 0: "Compiling a graph"
  std::optional<LoggedValue> total_bytes;
  std::optional<LoggedValue> free_at_start_bytes;
  std::optional<LoggedValue> requested_bytes;
  std::optional<LoggedValue> weights_bytes;
  std::optional<LoggedValue> peak_torch_bytes;  // vLLM 0.6.4: the torch peak, weights included
  std::optional<LoggedValue> activation_bytes;
  std::optional<LoggedValue> non_torch_bytes;
  std::optional<LoggedValue> consumed_bytes;  // V1 >= 0.2x: "X GiB for consumed memory (weights
                                              // + non-torch)"
  std::optional<LoggedValue> graph_bytes;
  std::optional<LoggedValue> available_kv_bytes;  // the KV budget (after the 310P halving)
  std::optional<LoggedValue> num_blocks;
  std::optional<LoggedValue> kv_tokens;
  std::optional<LoggedValue> max_concurrency;
  std::optional<LoggedValue> sglang_kv_size_bytes;  // K + V (or the MLA KV) pool bytes
  bool halved = false;             // "(halved for workspace)": vllm-ascend's 310P worker
  std::vector<std::string> notes;  // repeated figures, version inferred from the format, ...
  int num_lines = 0;
  int num_matched_lines = 0;
};

// Reads the figures. An empty text, or one in which no line is a known figure (a foreign
// log), is an error naming `file_name`.
StatusOr<StartupLog> parse_startup_log(std::string_view text, const std::string& file_name);

}  // namespace kvsim
