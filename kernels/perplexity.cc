#include "kernels/perplexity.h"

#include <algorithm>
#include <cmath>

#include "core/capacity.h"
#include "kernels/llama_session.h"
#include "kernels/tokenizer.h"

namespace kvsim::kernels {
namespace {

struct PolicyRun {
  KvPolicy policy;
  LlamaSession session;
  double nll = 0.0;
  double kl = 0.0;
  uint64_t top1_agree = 0;
  uint32_t max_attended = 0;
};

// log_softmax of one logits row, in double.
void log_softmax(const Eigen::Ref<const Eigen::RowVectorXf>& logits, std::vector<double>* out) {
  const double max_logit = logits.maxCoeff();
  double sum = 0.0;
  for (Eigen::Index i = 0; i < logits.size(); ++i) sum += std::exp(logits(i) - max_logit);
  const double log_sum = max_logit + std::log(sum);
  out->resize(static_cast<size_t>(logits.size()));
  for (Eigen::Index i = 0; i < logits.size(); ++i) (*out)[i] = logits(i) - log_sum;
}

size_t argmax(const std::vector<double>& x) {
  return static_cast<size_t>(std::max_element(x.begin(), x.end()) - x.begin());
}

SessionOptions session_options(const KvPolicy& policy, const PerplexityOptions& options,
                               uint32_t ctx) {
  SessionOptions s;
  s.store = options.store;
  s.store.quant = policy.quant;
  s.store.kivi = policy.kivi;
  if (policy.quant == KvQuant::kInt4Kivi) {  // key groups must not straddle blocks
    const uint32_t g = policy.kivi.group;
    s.store.block_size = (std::max(s.store.block_size, g) + g - 1) / g * g;
  }
  s.retention = policy.retention;
  s.max_tokens = ctx;
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
  return (bits + 7) / 8;
}

// Runs one window through a session token by token; *logp gets log p(. | prefix) per step.
void run_window(std::span<const int> input, LlamaSession* session,
                std::vector<std::vector<double>>* logp) {
  session->reset();
  RowMatrix logits;
  logp->resize(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    session->append(input.subspan(i, 1), &logits);
    log_softmax(logits.row(0), &(*logp)[i]);
  }
}

Status check_inputs(const LlamaModel& model, std::span<const int> tokens, uint32_t ctx) {
  const LlamaConfig& c = model.config();
  if (ctx == 0 || ctx > c.seq_len) {
    return Status::invalid_argument("--ctx " + std::to_string(ctx) + ": expected 1.." +
                                    std::to_string(c.seq_len) + " (the model's seq_len)");
  }
  if (tokens.empty()) return Status::invalid_argument("the text has no tokens to score");
  for (int t : tokens) {
    if (t < 0 || static_cast<uint32_t>(t) >= c.vocab_size) {
      return Status::invalid_argument("token id " + std::to_string(t) +
                                      " is outside the model's vocabulary");
    }
  }
  return Status::ok();
}

}  // namespace

StatusOr<PerplexityReport> measure_perplexity(const LlamaModel& model,
                                              std::span<const int> tokens,
                                              const PerplexityOptions& options,
                                              std::span<const KvPolicy> policies) {
  const uint32_t ctx = options.ctx == 0 ? model.config().seq_len : options.ctx;
  KVSIM_RETURN_IF_ERROR(check_inputs(model, tokens, ctx));
  std::vector<PolicyRun> runs;
  KVSIM_ASSIGN_OR_RETURN(KvPolicy full, parse_kv_policy("full"));
  std::vector<KvPolicy> all = {full};
  for (const KvPolicy& p : policies) {
    if (p.name != "full" || p.quant != KvQuant::kNone) all.push_back(p);
  }
  for (const KvPolicy& p : all) {
    auto session = LlamaSession::create(model, session_options(p, options, ctx));
    if (!session.is_ok()) return session.status().with_context("KV policy " + p.name);
    runs.push_back({p, std::move(session).value()});
  }
  std::vector<std::vector<double>> full_logp, logp;
  std::vector<int> input;
  for (size_t start = 0; start < tokens.size(); start += ctx) {
    const size_t end = std::min(tokens.size(), start + ctx);
    input.assign(1, kBosToken);
    input.insert(input.end(), tokens.begin() + start, tokens.begin() + end - 1);
    for (PolicyRun& run : runs) {
      std::vector<std::vector<double>>& mine = &run == &runs.front() ? full_logp : logp;
      run_window(input, &run.session, &mine);
      run.max_attended = std::max(run.max_attended, run.session.max_attended());
      for (size_t i = 0; i < input.size(); ++i) {
        run.nll -= mine[i][static_cast<size_t>(tokens[start + i])];
        if (&run == &runs.front()) continue;
        double kl = 0.0;
        for (size_t v = 0; v < mine[i].size(); ++v) {
          kl += std::exp(full_logp[i][v]) * (full_logp[i][v] - mine[i][v]);
        }
        run.kl += kl;
        run.top1_agree += argmax(mine[i]) == argmax(full_logp[i]) ? 1 : 0;
      }
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
