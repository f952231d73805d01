#include "kernels/perplexity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/base/checked_math.h"
#include "core/base/units.h"
#include "core/engine/capacity.h"
#include "kernels/llama_session.h"
#include "kernels/tokenizer.h"

namespace kvsim::kernels {
namespace {

constexpr uint32_t kMaxBatch = 32;  // windows decoded together (one weight pass per step)

struct PolicyRun {
  KvPolicy policy;
  LlamaSession session;
  double nll = 0.0;
  double kl = 0.0;
  uint64_t top1_agree = 0;
  uint32_t max_attended = 0;
};

// log p(. | prefix) of each step of each window of a batch: [window][step * vocab + token].
using WindowLogProbs = std::vector<std::vector<float>>;

// Writes the log_softmax of one logits row to out[0 .. size).
void log_softmax(const float* logits, size_t size, float* out) {
  double max_logit = logits[0];
  for (size_t i = 1; i < size; ++i) max_logit = std::max<double>(max_logit, logits[i]);
  double sum = 0.0;
  for (size_t i = 0; i < size; ++i) sum += std::exp(logits[i] - max_logit);
  const double log_sum = max_logit + std::log(sum);
  for (size_t i = 0; i < size; ++i) out[i] = static_cast<float>(logits[i] - log_sum);
}

size_t argmax(const float* x, size_t size) {
  return static_cast<size_t>(std::max_element(x, x + size) - x);
}

SessionOptions session_options(const KvPolicy& policy, const PerplexityOptions& options,
                               uint32_t ctx, uint32_t windows) {
  SessionOptions s;
  s.store = options.store;
  s.store.quant = policy.quant;
  s.store.kivi = policy.kivi;
  if (policy.quant == KvQuant::kInt4Kivi) {  // key groups must not straddle blocks
    const uint32_t g = policy.kivi.group;
    s.store.block_size = ceil_div(std::max(s.store.block_size, g), g) * g;
  }
  s.retention = policy.retention;
  s.max_tokens = ctx;
  s.max_sequences = std::min(windows, kMaxBatch);
  return s;
}

// Bytes the policy's cache holds for one sequence attending `tokens` positions at once.
uint64_t kv_bytes(const LlamaModel& model, const KvPolicy& policy, const KvStoreOptions& store,
                  uint32_t tokens) {
  const LlamaConfig& c = model.config();
  const KvShape shape{c.n_layers, 2, c.n_kv_heads, c.head_dim()};
  const uint64_t full_bits = kv_bits_per_token(shape, {store.dtype, 0});
  uint64_t bits = full_bits * tokens;
  if (policy.quant == KvQuant::kInt8) {
    bits = kv_bits_per_token(shape, {DType::kInt8, c.head_dim()}) * tokens;
  } else if (policy.quant == KvQuant::kInt4Kivi) {
    const uint32_t quantized = kivi_num_quantized(policy.kivi, tokens);
    bits = kv_bits_per_token(shape, {DType::kInt4, policy.kivi.group}) * quantized +
           kv_bits_per_token(shape, {DType::kFp32, 0}) * (tokens - quantized);
  }
  return ceil_div(bits, kBitsPerByte);
}

// Decodes a batch of windows (inputs[w], the first ones longest: only the text's last window
// may be shorter) step by step, window w as sequence w of the session. Returns false when the
// hooks ask to stop (checked every step, so that Cancel answers within one decode step).
bool run_windows(const std::vector<std::vector<int>>& inputs, uint32_t vocab,
                 const PerplexityHooks& hooks, LlamaSession* session, WindowLogProbs* logp) {
  session->reset();
  logp->resize(inputs.size());
  for (size_t w = 0; w < inputs.size(); ++w) (*logp)[w].resize(inputs[w].size() * vocab);
  std::vector<int> step_tokens;
  RowMatrix logits;
  for (size_t i = 0; i < inputs.front().size(); ++i) {
    if (hooks.stop != nullptr && hooks.stop->load(std::memory_order_relaxed)) return false;
    step_tokens.clear();
    for (const std::vector<int>& input : inputs) {
      if (i < input.size()) step_tokens.push_back(input[i]);
    }
    session->decode_step(step_tokens, &logits);
    for (size_t w = 0; w < step_tokens.size(); ++w) {
      log_softmax(logits.row(static_cast<Eigen::Index>(w)).data(), vocab,
                  (*logp)[w].data() + i * vocab);
    }
  }
  return true;
}

// Adds one policy's NLL (and its KL / top-1 against full) over a batch of windows.
void score_windows(const WindowLogProbs& full, const WindowLogProbs& mine,
                   std::span<const int> targets, uint32_t vocab, bool is_full, PolicyRun* run) {
  size_t target = 0;
  for (size_t w = 0; w < mine.size(); ++w) {
    for (size_t i = 0; i < mine[w].size() / vocab; ++i, ++target) {
      const float* p = mine[w].data() + i * vocab;
      run->nll -= p[targets[target]];
      if (is_full) continue;
      const float* f = full[w].data() + i * vocab;
      double kl = 0.0;
      for (size_t v = 0; v < vocab; ++v) kl += std::exp(double{f[v]}) * (double{f[v]} - p[v]);
      run->kl += kl;
      run->top1_agree += argmax(p, vocab) == argmax(f, vocab) ? 1 : 0;
    }
  }
}

Status check_inputs(const LlamaModel& model, std::span<const int> tokens, uint32_t ctx) {
  const LlamaConfig& c = model.config();
  if (ctx == 0 || ctx > c.seq_len) {
    return Status::invalid_argument(
        fmt::format("--ctx {}: expected 1..{} (the model's seq_len)", ctx, c.seq_len));
  }
  if (tokens.empty()) return Status::invalid_argument("the text has no tokens to score");
  for (int t : tokens) {
    if (t < 0 || static_cast<uint32_t>(t) >= c.vocab_size) {
      return Status::invalid_argument(
          fmt::format("token id {} is outside the model's vocabulary", t));
    }
  }
  return Status::ok();
}

}  // namespace

StatusOr<PerplexityReport> measure_perplexity(const LlamaModel& model, std::span<const int> tokens,
                                              const PerplexityOptions& options,
                                              std::span<const KvPolicy> policies,
                                              const PerplexityHooks& hooks) {
  const uint32_t ctx = options.ctx == 0 ? model.config().seq_len : options.ctx;
  KVSIM_RETURN_IF_ERROR(check_inputs(model, tokens, ctx));
  std::vector<PolicyRun> runs;
  KVSIM_ASSIGN_OR_RETURN(KvPolicy full, parse_kv_policy("full"));
  std::vector<KvPolicy> all = {full};
  for (const KvPolicy& p : policies) {
    if (p.name != "full" || p.quant != KvQuant::kNone) all.push_back(p);
  }
  for (const KvPolicy& p : all) {
    auto session = LlamaSession::create(
        model,
        session_options(p, options, ctx, static_cast<uint32_t>(ceil_div(tokens.size(), ctx))));
    if (!session.is_ok()) return session.status().with_context("KV policy " + p.name);
    runs.push_back({p, std::move(session).value()});
  }
  const uint32_t vocab = model.config().vocab_size;
  const size_t window_count = ceil_div(tokens.size(), ctx);
  WindowLogProbs full_logp, logp;
  const size_t steps = ceil_div(window_count, kMaxBatch) * runs.size();  // progress
  size_t steps_done = 0;
  for (size_t first = 0; first < window_count; first += kMaxBatch) {
    const size_t last = std::min(window_count, first + kMaxBatch);
    std::vector<std::vector<int>> inputs;  // BOS + each window's tokens but its last
    for (size_t w = first; w < last; ++w) {
      const size_t end = std::min(tokens.size(), (w + 1) * ctx);
      inputs.push_back({kBosToken});
      inputs.back().insert(inputs.back().end(), tokens.begin() + w * ctx, tokens.begin() + end - 1);
    }
    const std::span<const int> targets = tokens.subspan(first * ctx);
    for (PolicyRun& run : runs) {
      const bool is_full = &run == &runs.front();
      if (!run_windows(inputs, vocab, hooks, &run.session, is_full ? &full_logp : &logp)) {
        return Status::cancelled(
            fmt::format("perplexity cancelled after {} of {} steps", steps_done, steps));
      }
      for (size_t w = 0; w < inputs.size(); ++w) {
        run.max_attended = std::max(run.max_attended, run.session.max_attended(w));
      }
      score_windows(full_logp, is_full ? full_logp : logp, targets, vocab, is_full, &run);
      ++steps_done;
      if (hooks.progress) hooks.progress(static_cast<double>(steps_done) / steps);
    }
  }
  PerplexityReport report;
  report.tokens = tokens.size();
  const double n = static_cast<double>(tokens.size());
  const double full_ppl = std::exp(runs.front().nll / n);
  for (PolicyRun& run : runs) {
    PolicyResult r;
    r.policy = run.policy.name;
    r.budget_tokens = run.policy.budget_tokens();
    r.ppl = std::exp(run.nll / n);
    r.delta_ppl = r.ppl - full_ppl;
    r.kl = &run == &runs.front() ? 0.0 : run.kl / n;
    r.top1_agreement = &run == &runs.front() ? 1.0 : static_cast<double>(run.top1_agree) / n;
    r.kv_bytes = kv_bytes(model, run.policy, options.store, run.max_attended);
    report.results.push_back(r);
  }
  return report;
}

}  // namespace kvsim::kernels
