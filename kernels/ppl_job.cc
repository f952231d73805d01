#include "kernels/ppl_job.h"

#include <filesystem>

#include "core/base/data_dir.h"
#include "core/config/config_reader.h"

namespace kvsim::kernels {
namespace {

// A relative file path from YAML resolves against the file's folder; data: paths stay.
std::string resolve_relative(const std::string& path, const std::string& base_dir) {
  if (path.empty() || base_dir.empty() || path.rfind(kDataPrefix, 0) == 0 ||
      std::filesystem::path(path).is_absolute()) {
    return path;
  }
  return (std::filesystem::path(base_dir) / path).string();
}

// `single` (one value) or `list` (a sequence) of scalars, as text.
void read_one_or_many(ConfigReader& r, const char* single, const char* list,
                      std::vector<std::string>* out) {
  std::string one;
  r.optional(single, &one);
  if (!one.empty()) out->push_back(one);
  if (const ConfigNode* many = r.child(list)) {
    if (!many->is_sequence()) return r.fail(*many, std::string(list) + " must be a list");
    for (const ConfigNode& item : many->items()) {
      if (!item.is_scalar()) return r.fail(item, std::string(list) + " holds single values");
      out->push_back(item.text());
    }
  }
}

}  // namespace

StatusOr<PplJob> ppl_job_from_config(const ConfigNode& node, const std::string& base_dir) {
  PplJob job;
  ConfigReader r(node, "ppl job");
  r.allow("description");
  r.optional("checkpoint", &job.checkpoint);
  r.optional("tokenizer", &job.tokenizer);
  r.optional("text", &job.text);
  r.optional("kv_layout", &job.kv_layout);
  r.optional("kv_dtype", &job.kv_dtype);
  r.optional("block_size", &job.block_size, 1u, 4096u);
  r.optional("ctx", &job.ctx, 0u, 1u << 20);
  r.optional("max_tokens", &job.max_tokens, 0ull, 1ull << 40);
  read_one_or_many(r, "policy", "policies", &job.policies);
  std::vector<std::string> budgets;
  read_one_or_many(r, "budget", "budgets", &budgets);
  for (const std::string& text : budgets) {
    uint64_t budget = 0;
    if (!parse_uint64(text, &budget).is_ok() || budget == 0) {
      r.fail("budgets must be positive token counts, got '" + text + "'");
      break;
    }
    job.budgets.push_back(budget);
  }
  KVSIM_RETURN_IF_ERROR(r.finish());
  if (job.policies.empty()) return error_at(node.mark(), "a ppl job needs a policy (or policies)");
  job.checkpoint = resolve_relative(job.checkpoint, base_dir);
  job.tokenizer = resolve_relative(job.tokenizer, base_dir);
  job.text = resolve_relative(job.text, base_dir);
  return job;
}

StatusOr<std::vector<KvPolicy>> expand_ppl_policies(const std::vector<std::string>& specs,
                                                    const std::vector<uint64_t>& budgets) {
  std::vector<KvPolicy> out;
  for (const std::string& spec : specs) {
    KVSIM_ASSIGN_OR_RETURN(KvPolicy policy, parse_kv_policy(spec));
    if (budgets.empty() || !policy.evicts()) {
      out.push_back(std::move(policy));
      continue;
    }
    for (uint64_t budget : budgets) {
      auto at_budget = kv_policy_at_budget(spec, budget);
      if (!at_budget.is_ok()) return at_budget.status().with_context("budgets");
      out.push_back(std::move(at_budget).value());
    }
  }
  return out;
}

std::vector<int> ppl_tokens(const Tokenizer& tokenizer, const std::string& text,
                            uint64_t max_tokens) {
  std::vector<int> tokens =
      tokenizer.encode(text, /*bos=*/false, /*eos=*/false, /*dummy_prefix=*/false);
  if (max_tokens > 0 && tokens.size() > max_tokens) tokens.resize(max_tokens);
  return tokens;
}

StatusOr<PplJobResult> run_ppl_job(const PplJob& job, const PerplexityHooks& hooks) {
  KVSIM_ASSIGN_OR_RETURN(LoadedLlama loaded, load_llama(job.checkpoint, job.tokenizer));
  KVSIM_ASSIGN_OR_RETURN(KvStoreOptions store,
                         make_kv_store_options(job.kv_layout, job.kv_dtype, job.block_size));
  KVSIM_ASSIGN_OR_RETURN(std::vector<KvPolicy> policies,
                         expand_ppl_policies(job.policies, job.budgets));
  KVSIM_ASSIGN_OR_RETURN(std::string text, read_text_file(job.text));
  const std::vector<int> tokens = ppl_tokens(*loaded.tokenizer, text, job.max_tokens);
  PplJobResult result;
  result.ctx = job.ctx == 0 ? loaded.model->config().seq_len : job.ctx;
  result.checkpoint = job.checkpoint;
  result.model = loaded.model->config();
  KVSIM_ASSIGN_OR_RETURN(
      result.report, measure_perplexity(*loaded.model, tokens, {job.ctx, store}, policies, hooks));
  return result;
}

bool is_bundled_checkpoint(const std::string& checkpoint) {
  return checkpoint == kDefaultCheckpoint;
}

std::map<std::string, double> ppl_job_metrics(const PerplexityReport& report) {
  std::map<std::string, double> metrics;
  metrics["tokens"] = static_cast<double>(report.tokens);
  if (report.results.empty()) return metrics;
  const PolicyResult& full = report.results.front();
  const PolicyResult& policy = report.results.back();
  metrics["full_ppl"] = full.ppl;
  metrics["full_kv_bytes"] = static_cast<double>(full.kv_bytes);
  metrics["ppl"] = policy.ppl;
  metrics["delta_ppl"] = policy.delta_ppl;
  metrics["kl"] = policy.kl;
  metrics["top1_agreement"] = policy.top1_agreement;
  metrics["kv_bytes"] = static_cast<double>(policy.kv_bytes);
  metrics["kv_bytes_saved"] =
      static_cast<double>(full.kv_bytes) - static_cast<double>(policy.kv_bytes);
  if (policy.budget_tokens) metrics["budget_tokens"] = static_cast<double>(*policy.budget_tokens);
  return metrics;
}

}  // namespace kvsim::kernels
