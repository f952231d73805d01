// vLLM's budgets: the V1 engine, the V0 engine and vllm-ascend (which runs vLLM's engine with
// an NPU worker). Sources are read from vLLM's and vllm-ascend's history (docs/engine_memory.md
// gives commits and quotes).
#include <algorithm>
#include <cmath>

#include "core/base/text_format.h"
#include "core/engine/engine_memory_rules.h"

namespace kvsim::engine_rules {
namespace {

constexpr EngineVersion kV1MemoryProfiler{0, 9, 1};         // PR #19312: MemorySnapshot baseline
constexpr EngineVersion kV1GraphSizesBySeqs{0, 10, 0};      // PR #20628: min(2 x seqs, 512)
constexpr EngineVersion kV1NcclInBaseline{0, 11, 0};        // PR #25359: snapshot after dist. init
constexpr EngineVersion kV1FusedAllReduce{0, 16, 0};        // PRs #34299, #33985: on, unified API
constexpr EngineVersion kV1TritonSampler{0, 17, 0};         // PR #33538: Triton top-k/top-p
constexpr EngineVersion kV1GraphEstimate{0, 18, 0};         // PR #30515: profile_cudagraph_memory
constexpr EngineVersion kV1GraphDefault{0, 21, 0};          // PR #38284: subtracted, util 0.92
constexpr EngineVersion kV1Mrv2Dense{0, 25, 0};             // PR #44443: model runner v2, dense
constexpr EngineVersion kV1SmallFusionWorkspace{0, 27, 0};  // FlashInfer >= 0.6.16 (#3745)
constexpr EngineVersion kV1Mrv2All{0, 29, 0};          // PR #53183: model runner v2, every model
constexpr EngineVersion kV1Mrv2Graphs{0, 29, 0};       // PR #53306: v2 reserves graph memory
constexpr uint32_t kV1MaxCaptureSize = 512;            // vLLM's cap on the default sizes
constexpr EngineVersion kAscendProfiler{0, 15, 0};     // #6625: upstream memory_profiling
constexpr EngineVersion kAscend310pHalving{0, 18, 0};  // #7372: NPUWorker310 // 2

constexpr char kV1WorkerSource[] =
    "vllm/v1/worker/gpu_worker.py determine_available_memory (requested_memory = "
    "init_snapshot.total_memory * gpu_memory_utilization)";
constexpr char kV1WeightsSource[] =
    "GPUModelRunner.load_model: model_memory_usage (\"Model loading took X GiB\")";
constexpr char kV1ProfileSource[] =
    "GPUModelRunner.profile_run: _dummy_run(max_num_batched_tokens) + _dummy_sampler_run "
    "(torch_peak_increase)";
constexpr char kMrv2ProfileSource[] =
    "vllm/v1/worker/gpu/model_runner.py profile_run (model runner v2): _dummy_run + "
    "_dummy_sampler_run without top-k/top-p; a cold torch.compile runs inside the window "
    "(vLLM #54122)";
constexpr char kMrv2Note[] =
    "model runner v2 (vLLM >= 0.25 for dense models, >= 0.29 for all): a cold torch.compile "
    "cache assumed (a first launch), whose peak (the embedding table's size, inferred: "
    "docs/engine_memory.md) counts as activation; a warm cache gives a larger pool (vLLM "
    "#54383; --compile-cache warm)";
constexpr char kMrv2WarmNote[] =
    "model runner v2 (vLLM >= 0.25 for dense models, >= 0.29 for all): a warm torch.compile "
    "cache (--compile-cache warm): no compile runs inside the profile";
constexpr char kNonTorchSource[] =
    "memory_profiling: non_torch_increase since the worker's snapshot (vllm/utils.py, "
    "vllm/utils/mem_utils.py)";
constexpr char kV1GraphSource[] =
    "gpu_worker.py: cudagraph_memory_estimate (profile_cudagraph_memory, >= 0.18; subtracted "
    "by default from 0.21)";

double vllm_default_utilization(const EngineVersion& version) {
  return version >= kV1GraphDefault ? 0.92 : 0.9;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// vllm/engine/arg_utils.py get_batch_defaults / _set_default_args_v1, by version: a large
// device gets 8192 batched tokens (`vllm serve`; 16384 in the LLM class) and 1024 sequences,
// others 2048 (8192) and 256. "Large": >= 70 GiB and not an A100 (0.9.0 on), >= 70 GiB
// (0.8.5), an H100/H200 by name (0.8.0 - 0.8.4; 1024 sequences everywhere before 0.8.4).
void resolve_v1_batch(const Inputs& in, EngineBudget* out) {
  const EngineVersion& v = in.version;
  const bool big_memory = in.total_bytes >= 70 * kGiB;
  const bool big = v >= EngineVersion{0, 9, 0} ? big_memory && !contains(in.device.name, "a100")
                   : v >= EngineVersion{0, 8, 5}
                       ? big_memory
                       : contains(in.device.name, "h100") || contains(in.device.name, "h200");
  const bool server = in.query.entry_point == EntryPoint::kServer;
  const uint32_t default_tokens = big ? (server ? 8192 : 16384) : (server ? 2048 : 8192);
  const uint32_t default_seqs = v >= EngineVersion{0, 8, 4} ? (big ? 1024 : 256) : 1024;
  out->chunked_prefill = in.query.chunked_prefill.value_or(true);
  const uint64_t unchunked = std::max<uint64_t>(in.max_model_len, 2048);
  out->max_num_batched_tokens =
      in.query.max_num_batched_tokens > 0 ? in.query.max_num_batched_tokens
      : out->chunked_prefill              ? default_tokens
                             : static_cast<uint32_t>(std::min<uint64_t>(unchunked, 1u << 30));
  out->max_num_seqs = in.query.max_num_seqs > 0
                          ? in.query.max_num_seqs
                          : std::min(default_seqs, out->max_num_batched_tokens);
  // vllm/config/vllm.py _set_cudagraph_sizes: the largest capture size is min(2 x max_num_seqs,
  // 512) from 0.10 (PR #20628, merged 8 July 2025; 512 before), never above the batched tokens.
  const uint32_t largest = v >= kV1GraphSizesBySeqs
                               ? static_cast<uint32_t>(std::min<uint64_t>(
                                     2 * uint64_t{out->max_num_seqs}, kV1MaxCaptureSize))
                               : kV1MaxCaptureSize;
  out->graph_capture_size = std::min(largest, out->max_num_batched_tokens);
}

ProfileBatch profile_batch(const EngineBudget& out) {
  return {out.max_num_batched_tokens,
          std::min<uint64_t>(out.max_num_seqs, out.max_num_batched_tokens)};
}

uint32_t activation_bytes(const Inputs& in) {
  return dtype_bits(activation_dtype(in.capacity.weight_dtype)) / 8;
}

// Which V1 model runner profiles: v2 (vllm/v1/worker/gpu/) by default for dense models from
// 0.25 and for every model from 0.29. (From 0.23 a few architectures got it early; kvsim, which
// does not keep the architecture's name, gives them the first runner until 0.25.)
bool model_runner_v2(const Inputs& in) {
  return in.version >= kV1Mrv2All || (in.version >= kV1Mrv2Dense && in.model.num_experts == 0);
}

// A term summed from parts, its formula naming each.
struct TermSum {
  uint64_t bytes = 0;
  std::string formula;
  void add(uint64_t part, const std::string& what) {
    bytes += part;
    formula += (formula.empty() ? "" : " + ") + format_bytes(part) + " " + what;
  }
};

// NCCL's buffers per worker at TP >= 2. Before the worker's snapshot moved after the
// distributed init (V0, V1 < 0.11) its set-up counts too; over NVLink it connects many more
// channels in the profile than over PCIe, where the per-peer set-up figure covers both.
void add_nccl(const Inputs& in, bool setup_counted, TermSum* sum) {
  if (in.capacity.tp < 2) return;
  std::string what;
  const uint64_t setup = nccl_setup_bytes(in, &what);
  if (setup_counted) sum->add(setup, what);
  if (has_nvlink(in.device)) {
    sum->add(kNvlinkNcclConnectBytes, "NCCL channels connected in the profile (NVLink)");
  }
}

// vLLM fuses all-reduce + RMSNorm with FlashInfer by default from 0.16 (PRs #34299 and #33985,
// merged 9-13 Feb 2026; the release is inferred from the dates) at TP 2, 4 and 8 on Hopper
// and Blackwell; its workspace is three multicast-granularity buffers on an NVSwitch until
// vLLM pins FlashInfer >= 0.6.16 (0.27, inferred from the images built on it).
bool fused_all_reduce_workspace(const Inputs& in) {
  const uint32_t tp = in.capacity.tp;
  return in.device.nvlink_multicast && (tp == 2 || tp == 4 || tp == 8) && !in.query.enforce_eager &&
         in.version >= kV1FusedAllReduce && in.version < kV1SmallFusionWorkspace;
}

SetAsideTerm v1_non_torch_term(const Inputs& in) {
  TermSum sum;
  sum.add(kNonTorchBytes, "per worker");
  add_nccl(in, in.version < kV1NcclInBaseline, &sum);
  if (fused_all_reduce_workspace(in)) {
    sum.add(kFusedAllReduceWorkspaceBytes,
            "fused all-reduce workspace (3 buffers x the 512 MiB multicast granularity)");
  }
  return {"non-torch memory", sum.bytes, sum.formula, kNonTorchSource};
}

SetAsideTerm v0_non_torch_term(const Inputs& in) {
  TermSum sum;
  sum.add(kNonTorchBytes, "per worker");
  add_nccl(in, true, &sum);
  return {"non-torch memory", sum.bytes, sum.formula, kNonTorchSource};
}

// What a version charges beyond its own allocations: the CUDA context and other processes'
// memory, where non-torch memory is measured as total - free - torch_allocated.
SetAsideTerm context_term(const Inputs& in, const std::string& source) {
  std::string formula = "CUDA context " + format_bytes(kCudaContextBytes);
  if (in.query.device_used_bytes > 0)
    formula += " + other processes " + format_bytes(in.query.device_used_bytes);
  return {"CUDA context and other processes", kCudaContextBytes + in.query.device_used_bytes,
          formula, source};
}

// From vLLM 0.9.1 (PR #19312) and vllm-ascend 0.15 the worker snapshots the device at start
// and charges only what grows from there, so other processes' memory costs the KV cache
// nothing; instead the worker refuses to start when the free memory at start is below the
// requested share (gpu_worker.py init_device, vllm_ascend/worker/worker.py _init_device).
// device_used_bytes stands for what the snapshot sees in use (a log's total - free).
// (vllm-ascend's 310P worker, from 0.18, subtracts it again all the same: `charged`.)
Status check_free_at_start(const Inputs& in, const std::string& engine, bool charged,
                           EngineBudget* out) {
  const uint64_t used = in.query.device_used_bytes;
  if (used == 0) return Status::ok();
  const uint64_t free = in.total_bytes > used ? in.total_bytes - used : 0;
  if (free < out->requested_bytes) {
    const double most = static_cast<double>(free) / static_cast<double>(in.total_bytes);
    return Status::invalid_argument(
        engine + " " + engine_version_name(in.version) + " refuses to start: the free memory at " +
        "start, " + format_bytes(free) + " (total " + format_bytes(in.total_bytes) + " - " +
        format_bytes(used) + " in use), is below the requested " +
        format_bytes(out->requested_bytes) + " (total x gpu_memory_utilization " +
        format_number(out->memory_utilization) + "): it raises \"Free memory on device ... on " +
        "startup is less than desired GPU memory utilization\"; a utilization of at most " +
        format_fixed(std::floor(most * 100) / 100, 2) + " starts");
  }
  out->notes.push_back(format_bytes(used) + " in use on the device at start: the worker checks " +
                       "that the rest, " + format_bytes(free) + ", covers the requested memory" +
                       (charged
                            ? " (and the 310P worker subtracts it again, a term above)"
                            : " and charges none of it (its profile starts from that snapshot)"));
  return Status::ok();
}

void add_graph_term(const Inputs& in, bool default_subtract, const std::string& name,
                    const std::string& source, EngineBudget* out) {
  if (in.query.enforce_eager) {
    out->notes.push_back("enforce_eager: no graphs are captured");
    return;
  }
  out->graphs_subtracted = in.query.cuda_graph_memory.value_or(default_subtract);
  if (out->graphs_subtracted) {
    out->terms.push_back(graph_term(in, *out, name, source));
  } else {
    out->notes.push_back(name +
                         " not subtracted: captured after the KV cache is allocated, out of the "
                         "1 - utilization slack (--cuda-graph-memory subtract models it)");
  }
}

}  // namespace

Status vllm_v1_budget(const Inputs& in, EngineBudget* out) {
  const EngineVersion& v = in.version;
  set_requested(in, vllm_default_utilization(v), "gpu_memory_utilization", kV1WorkerSource, out);
  resolve_v1_batch(in, out);
  out->terms.push_back(weights_term(in, kV1WeightsSource));
  const bool runner_v2 = model_runner_v2(in);
  if (runner_v2) {
    ProfileBatch batch = profile_batch(*out);
    batch.cold_compile = !in.query.enforce_eager && !in.query.warm_compile_cache;
    out->terms.push_back(
        activation_term(in, batch, activation_bytes(in) + kRunnerV2SamplerBytesPerLogitBeyondDtype,
                        kMrv2ProfileSource));
    out->notes.push_back(in.query.warm_compile_cache ? kMrv2WarmNote : kMrv2Note);
  } else {
    const uint32_t per_logit = v >= kV1TritonSampler
                                   ? activation_bytes(in) + kTritonSamplerBytesPerLogitBeyondDtype
                                   : kSortSamplerBytesPerLogit;
    out->terms.push_back(activation_term(in, profile_batch(*out), per_logit, kV1ProfileSource));
  }
  out->terms.push_back(v1_non_torch_term(in));
  if (v < kV1MemoryProfiler) {
    out->terms.push_back(
        context_term(in, "gpu_worker.py (<= 0.9.0): non_torch = total - free - torch_allocated"));
  }
  // Model runner v2 made no graph estimate before 0.29 (its profile_cudagraph_memory returned 0).
  const bool estimated = runner_v2 ? v >= kV1Mrv2Graphs : v >= kV1GraphDefault;
  add_graph_term(in, estimated, "CUDA graphs", kV1GraphSource, out);
  if (out->graphs_subtracted && v < kV1GraphEstimate) {
    out->notes.push_back("vLLM before 0.18 has no graph estimate; kvsim subtracts its own");
  }
  return v < kV1MemoryProfiler ? Status::ok() : check_free_at_start(in, "vLLM", false, out);
}

Status vllm_v0_budget(const Inputs& in, EngineBudget* out) {
  const EngineVersion& v = in.version;
  set_requested(in, 0.9, "gpu_memory_utilization",
                "vllm/worker/worker.py determine_num_available_blocks: num_gpu_blocks = "
                "(total_gpu_memory * gpu_memory_utilization - peak_memory) // cache_block_size",
                out);
  // vllm/engine/arg_utils.py (0.6 on): chunked prefill is enabled for max_model_len > 32K on
  // CUDA without a sliding window; vllm/config.py SchedulerConfig: 512 (0.5 - 0.6) or 2048
  // (0.7 on) batched tokens with it, max(max_model_len, 2048) without.
  const bool auto_chunked = v >= EngineVersion{0, 6, 0} && in.max_model_len > 32768 &&
                            in.model.sliding_window_tokens == 0 && in.device.vendor == "nvidia";
  out->chunked_prefill = in.query.chunked_prefill.value_or(auto_chunked);
  const uint64_t unchunked = std::max<uint64_t>(in.max_model_len, 2048);
  const uint32_t chunked_tokens = v >= EngineVersion{0, 7, 0} ? 2048 : 512;
  out->max_num_batched_tokens =
      in.query.max_num_batched_tokens > 0 ? in.query.max_num_batched_tokens
      : out->chunked_prefill              ? chunked_tokens
                             : static_cast<uint32_t>(std::min<uint64_t>(unchunked, 1u << 30));
  out->max_num_seqs = in.query.max_num_seqs > 0 ? in.query.max_num_seqs : 256;
  out->terms.push_back(
      weights_term(in, "ModelRunner.load_model (\"Loading model weights took X GB\")"));
  out->terms.push_back(activation_term(
      in, profile_batch(*out), kSortSamplerBytesPerLogit,
      "ModelRunner.profile_run: max_num_seqs prompts summing to max_num_batched_tokens, "
      "sampled with top_k = vocab - 1, top_p 0.99"));
  out->terms.push_back(v0_non_torch_term(in));
  if (v >= EngineVersion{0, 6, 4} && v < EngineVersion{0, 6, 5}) {
    out->terms.push_back(
        context_term(in, "worker.py (0.6.4, #9352): non_torch = total - free - torch_allocated"));
  }
  out->notes.push_back("CUDA graphs are captured after the KV cache (V0): not in the budget");
  return Status::ok();
}

Status vllm_ascend_budget(const Inputs& in, EngineBudget* out) {
  const EngineVersion& v = in.version;
  const char* worker =
      v < kAscendProfiler ? "vllm_ascend/worker/worker_v1.py NPUWorker.determine_available_memory: "
                            "total_npu_memory * gpu_memory_utilization - peak_memory"
                          : "vllm_ascend/worker/worker.py (>= 0.15): upstream memory_profiling, "
                            "requested_memory - non_kv_cache_memory";
  set_requested(in, vllm_default_utilization(v), "gpu_memory_utilization", worker, out);
  resolve_v1_batch(in, out);
  out->block_size = 128;  // vllm_ascend/platform.py: cache_config.block_size = 128
  out->terms.push_back(weights_term(in, "NPUModelRunner.load_model"));
  out->terms.push_back(activation_term(
      in, profile_batch(*out), activation_bytes(in) + kSamplerLiveBytesPerLogitBeyondDtype,
      "NPUModelRunner.profile_run (vLLM's dummy run and sampler)"));
  out->terms.push_back(
      {"non-torch memory", kNpuNonTorchBytes,
       format_bytes(kNpuNonTorchBytes) + " per NPU worker (CANN runtime, HCCL)",
       v < kAscendProfiler ? "worker_v1.py: total - free - torch_allocated" : kNonTorchSource});
  if (v < kAscendProfiler && in.query.device_used_bytes > 0) {
    out->terms.push_back({"other processes", in.query.device_used_bytes,
                          "memory other processes hold, charged by total - free",
                          "worker_v1.py (<= 0.14): non_torch = total - free - torch_allocated"});
  }
  const bool halves = v >= kAscend310pHalving && in.device.kv_memory_factor < 1.0;
  if (halves) {
    if (in.query.device_used_bytes > 0) {
      out->terms.push_back(
          {"non-torch memory cleared by empty_cache", in.query.device_used_bytes,
           "what was in use at the start snapshot (total - free then: other processes' and "
           "the runtime's), subtracted again (vllm-ascend #14004, #14274)",
           "vllm_ascend/_310p/worker_310p.py determine_available_memory: (total - free - "
           "torch reserved) after the profile, less its non-torch increase"});
    }
    out->kv_factor = in.device.kv_memory_factor;
    out->kv_factor_source =
        "vllm_ascend/_310p/worker_310p.py NPUWorker310 (>= 0.18.0rc1, #7372): \"Divide the "
        "available memory by 2\" (\"halved for workspace\")";
  } else if (in.device.kv_memory_factor < 1.0) {
    out->notes.push_back("the 310P worker halves the budget only from vllm-ascend 0.18.0rc1");
  }
  add_graph_term(in, false, "NPU graph memory", "vllm-ascend worker: graph pool bytes (#8289)",
                 out);
  return v < kAscendProfiler ? Status::ok() : check_free_at_start(in, "vllm-ascend", halves, out);
}

}  // namespace kvsim::engine_rules
