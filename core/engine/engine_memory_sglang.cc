// SGLang's and MindIE's budgets. SGLang sizes its token pool from the *free* memory at start
// (python/sglang/srt/model_executor/model_runner.py profile_max_num_token, read at v0.3.6,
// v0.4.6, v0.4.10, v0.5.6):
//   rest_memory   = available_gpu_memory - total_gpu_memory * (1 - mem_fraction_static)
//   max_num_token = int(rest_memory * (1 << 30) // cell_size)
// where total_gpu_memory is the free memory after the distributed init (all-reduced MIN over
// ranks) and available_gpu_memory the free memory after the weights, i.e.
//   KV budget = free_at_start x mem_fraction_static - weights.
// MindIE (atb-models examples/run_pa.py, MindIE-LLM runners):
//   free_memory = NPU_MEMORY_FRACTION x max_memory - RESERVED_MEMORY_GB - warm_up_memory
//   num_blocks  = free_memory // (block_size x kv_heads x head_size x layers x 2 x dtype_size)
#include <algorithm>
#include <cmath>

#include "core/base/text_format.h"
#include "core/engine/engine_memory_rules.h"

namespace kvsim::engine_rules {
namespace {

constexpr uint64_t kMiBPerGiB = 1024;

struct SglangDefaults {
  uint32_t chunked_prefill_size = 0;
  uint32_t cuda_graph_max_bs = 0;
};

// server_args.py _handle_gpu_memory_settings (v0.5.3 - v0.5.6), by GPU memory in MiB.
SglangDefaults sglang_size_defaults(uint64_t gpu_mib, uint32_t tp) {
  const bool wide = tp >= 4;
  if (gpu_mib < 20 * kMiBPerGiB) return {2048, 8};
  if (gpu_mib < 35 * kMiBPerGiB) return {2048, wide ? 80u : 24u};
  if (gpu_mib < 60 * kMiBPerGiB) return {4096, wide ? 160u : 32u};
  if (gpu_mib < 160 * kMiBPerGiB) return {8192, wide ? 512u : 256u};
  return {16384, 512};
}

double round3(double value) { return std::round(value * 1000.0) / 1000.0; }

// The default mem_fraction_static for a GPU of `gpu_mib` MiB at `tp` ranks, by version.
double sglang_default_fraction(const EngineVersion& v, uint64_t gpu_mib, uint32_t tp,
                               const SglangDefaults& sizes, std::string* rule) {
  const double mem = static_cast<double>(gpu_mib);
  if (v >= EngineVersion{0, 5, 3}) {
    double reserved = 512 + std::max<double>(sizes.chunked_prefill_size, 2048) * 1.5 +
                      sizes.cuda_graph_max_bs * 2.0 + tp / 8.0 * 1024;
    if (gpu_mib > 60 * kMiBPerGiB) reserved = std::max(reserved, 10.0 * 1024);
    *rule =
        "round((gpu MiB - reserved) / gpu MiB, 3), reserved = 512 + max(chunked_prefill "
        "2048) x 1.5 + cuda_graph_max_bs x 2 + tp / 8 x 1024 = " +
        format_number(reserved) + " MiB (server_args.py, >= 0.5.3)";
    return round3((mem - reserved) / mem);
  }
  if (v >= EngineVersion{0, 4, 10}) {
    const double p = tp;
    const double reserved = gpu_mib < 35 * kMiBPerGiB    ? (2.8 + p / 10) * 1024
                            : gpu_mib < 90 * kMiBPerGiB  ? (9.5 + p / 2) * 1024
                            : gpu_mib < 160 * kMiBPerGiB ? (12 + p / 2) * 1024
                                                         : 32.0 * 1024;
    *rule = "round((gpu MiB - reserved) / gpu MiB, 3), reserved " + format_number(reserved) +
            " MiB by GPU memory and tp (server_args.py, 0.4.10 - 0.5.2)";
    return round3((mem - reserved) / mem);
  }
  *rule =
      "by tp: >= 16: 0.79, >= 8: 0.81, >= 4: 0.85, >= 2: 0.87, else 0.88 (server_args.py, "
      "0.3.6 - 0.4.9)";
  return tp >= 16 ? 0.79 : tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
}

}  // namespace

Status sglang_budget(const Inputs& in, EngineBudget* out) {
  const uint32_t tp = in.capacity.tp;
  const uint64_t gpu_mib = in.total_bytes / kMiB;
  const SglangDefaults sizes = sglang_size_defaults(gpu_mib, tp);
  std::string rule;
  const double fraction = sglang_default_fraction(in.version, gpu_mib, tp, sizes, &rule);
  // Free after the distributed init: the CUDA context, NCCL's set-up and other processes gone.
  std::string nccl_what;
  const uint64_t nccl = nccl_setup_bytes(in, &nccl_what);
  const uint64_t used = kCudaContextBytes + nccl + in.query.device_used_bytes;
  const uint64_t free_at_start = in.total_bytes > used ? in.total_bytes - used : 0;
  out->utilization_default = !in.query.memory_utilization.has_value();
  out->memory_utilization = in.query.memory_utilization.value_or(fraction);
  out->requested_bytes = static_cast<uint64_t>(
      std::floor(static_cast<long double>(free_at_start) * out->memory_utilization));
  out->requested_formula =
      "free at start x mem_fraction_static = (" + format_count(in.total_bytes) +
      " - CUDA context " + format_bytes(kCudaContextBytes) +
      (nccl > 0 ? " - " + nccl_what + " " + format_bytes(nccl) : std::string()) +
      (in.query.device_used_bytes > 0
           ? " - other processes " + format_bytes(in.query.device_used_bytes)
           : std::string()) +
      ") x " + format_number(out->memory_utilization) +
      (out->utilization_default ? " (the default: " + rule + ")" : "");
  out->requested_source =
      "model_runner.py profile_max_num_token: rest_memory = available_gpu_memory - "
      "total_gpu_memory * (1 - mem_fraction_static)";
  out->max_num_batched_tokens = in.query.max_num_batched_tokens > 0
                                    ? in.query.max_num_batched_tokens
                                    : sizes.chunked_prefill_size;
  out->max_num_seqs = in.query.max_num_seqs;
  out->block_size = 1;  // page_size 1: one token per page
  out->terms.push_back(
      weights_term(in, "ModelRunner.load_model (\"Load weight end ... mem usage\")"));
  out->notes.push_back(
      "activations and CUDA graphs come out of the 1 - mem_fraction_static share; the MLA "
      "latent is not divided by TP");
  return Status::ok();
}

Status mindie_budget(const Inputs& in, EngineBudget* out) {
  set_requested(in, 0.8, "NPU_MEMORY_FRACTION",
                "mindie_llm env: memory_fraction = NPU_MEMORY_FRACTION (default 0.8); "
                "run_pa.py: max_memory = ENV.memory_fraction * self.max_memory",
                out);
  out->block_size = 128;  // cacheBlockSize, recommended 128
  // maxPrefillTokens / maxPrefillBatchSize of MindIE's sample service config (assumed).
  out->max_num_batched_tokens =
      in.query.max_num_batched_tokens > 0 ? in.query.max_num_batched_tokens : 8192;
  out->max_num_seqs = in.query.max_num_seqs > 0 ? in.query.max_num_seqs : 50;
  out->chunked_prefill = false;
  out->terms.push_back(
      weights_term(in, "warm_up_memory (peak after the warm-up, weights included)"));
  out->terms.push_back(activation_term(
      in,
      {out->max_num_batched_tokens,
       std::min<uint64_t>(out->max_num_seqs, out->max_num_batched_tokens)},
      kMindieSamplerBytesPerLogit,
      "run_pa.py warm_up: a prefill of max_prefill_tokens (warm_up_memory - weights)"));
  out->notes.push_back("RESERVED_MEMORY_GB defaults to 0");
  return Status::ok();
}

}  // namespace kvsim::engine_rules
