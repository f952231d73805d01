// The perplexity harness behind `kvsim ppl`: teacher-forced evaluation of a text under KV
// cache policies, each compared with full attention on the same windows.
//
// The text's tokens t_0 .. t_{N-1} (no BOS, no dummy prefix) are cut into windows of ctx
// tokens; window w predicts t_{w ctx} .. t_{(w+1) ctx - 1} from BOS followed by the window's
// tokens, one decode step per token (so every policy, `full` included, runs the same kernels
// and `full` and `window:ctx` agree exactly):
//
//   input   BOS   t0   t1  ...  t(ctx-2)
//   target  t0    t1   t2  ...  t(ctx-1)          (the last window may be shorter)
//
// Per policy: ppl = exp(mean NLL); delta_ppl = ppl - ppl(full); kl = mean over positions of
// KL(p_full || p_policy) in nats; top1_agreement = share of positions whose argmax equals
// full's; kv_bytes = the KV cache one sequence keeps at its largest (positions attended at
// once x bytes per token from core/engine/capacity.h; KIVI: int4 groups + full-precision residual).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "kernels/kv_policy.h"
#include "kernels/llama_model.h"

namespace kvsim::kernels {

struct PerplexityOptions {
  uint32_t ctx = 0;      // window length in tokens; 0 = the model's seq_len
  KvStoreOptions store;  // layout, storage dtype and block size of the unquantized runs
};

// How a front end follows and stops a long measurement (the GUI's progress bar and Cancel).
struct PerplexityHooks {
  // Called after each batch of windows of each policy with the share of the work done, [0, 1].
  std::function<void(double)> progress;
  // When set and it turns true, measure_perplexity returns a cancelled Status within one
  // decode step (it is checked before every step); null: never.
  const std::atomic<bool>* stop = nullptr;
};

struct PolicyResult {
  std::string policy;                     // canonical spec
  std::optional<uint64_t> budget_tokens;  // empty: unbounded
  double ppl = 0.0;
  double delta_ppl = 0.0;
  double kl = 0.0;
  double top1_agreement = 0.0;
  uint64_t kv_bytes = 0;
};

struct PerplexityReport {
  uint64_t tokens = 0;                // predictions scored per policy
  std::vector<PolicyResult> results;  // full first, then `policies` in order
};

// Errors: ctx out of 1..seq_len, fewer than one token, a token outside the vocabulary, and
// any policy the store cannot run (e.g. KIVI's group not dividing the block size).
StatusOr<PerplexityReport> measure_perplexity(const LlamaModel& model, std::span<const int> tokens,
                                              const PerplexityOptions& options,
                                              std::span<const KvPolicy> policies,
                                              const PerplexityHooks& hooks = {});

}  // namespace kvsim::kernels
