#include "gui/ppl_study.h"

#include <algorithm>
#include <filesystem>

#include "core/base/data_dir.h"
#include "core/config/config_reader.h"
#include "kernels/llama_bundle.h"
#include "kernels/ppl_job.h"

namespace kvsim::gui {
namespace {

// The folder a checkpoint names: itself when it is a folder, else the model file's folder.
std::string checkpoint_folder(const std::string& checkpoint) {
  if (std::filesystem::is_directory(resolve_data_path(checkpoint))) {
    return checkpoint.empty() || checkpoint.back() == '/' ? checkpoint : checkpoint + "/";
  }
  const size_t slash = checkpoint.find_last_of('/');
  return slash == std::string::npos ? std::string() : checkpoint.substr(0, slash + 1);
}

}  // namespace

StatusOr<std::vector<uint64_t>> parse_budgets(std::string_view text) {
  std::vector<uint64_t> out;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t end = std::min(text.find_first_of(", ", begin), text.size());
    if (end > begin) {
      uint64_t value = 0;
      Status parsed = parse_uint64(text.substr(begin, end - begin), &value);
      if (!parsed.is_ok()) return parsed.with_context("budgets");
      if (value == 0) return Status::invalid_argument("budgets: a budget is at least 1 token");
      out.push_back(value);
    }
    begin = end + 1;
  }
  return out;
}

std::vector<std::string> split_specs(std::string_view text) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t end = std::min(text.find_first_of(" \t\n", begin), text.size());
    if (end > begin) out.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

PplFiles ppl_files(const PplStudyInput& input) {
  const std::string folder = checkpoint_folder(input.checkpoint);
  const bool is_folder = std::filesystem::is_directory(resolve_data_path(input.checkpoint));
  PplFiles files;
  files.model = is_folder ? folder + "model.bin" : input.checkpoint;
  files.tokenizer = input.tokenizer.empty() ? folder + "tokenizer.bin" : input.tokenizer;
  files.text = input.text.empty() ? folder + "eval_a.txt" : input.text;
  return files;
}

StatusOr<std::vector<PplCurve>> ppl_curves(const PplStudyInput& input,
                                           const kernels::PerplexityReport& report) {
  if (report.results.empty()) return Status::invalid_argument("empty perplexity report");
  const kernels::PolicyResult& full = report.results.front();
  std::vector<PplCurve> curves;
  size_t next = 1;  // results: full, then the expanded policies in order
  for (const std::string& spec : input.policies) {
    KVSIM_ASSIGN_OR_RETURN(std::vector<kernels::KvPolicy> expanded,
                           kernels::expand_ppl_policies({spec}, input.budgets));
    PplCurve curve;
    curve.spec = spec;
    curve.evicts = expanded.front().evicts();
    for (const kernels::KvPolicy& policy : expanded) {
      if (next >= report.results.size() || report.results[next].policy != policy.name) {
        return Status::invalid_argument("report does not match the policies at " + policy.name);
      }
      const kernels::PolicyResult& r = report.results[next++];
      if (curve.evicts) curve.budgets.push_back(r.budget_tokens.value_or(0));
      curve.policies.push_back(r.policy);
      curve.ppl.push_back(r.ppl);
      curve.kv_bytes_saved.push_back(static_cast<double>(full.kv_bytes) -
                                     static_cast<double>(r.kv_bytes));
    }
    curves.push_back(std::move(curve));
  }
  return curves;
}

StatusOr<PplStudy> run_ppl_study(const PplStudyInput& input,
                                 const std::function<void(double)>& progress,
                                 const std::atomic<bool>* stop) {
  for (const std::string& spec : input.policies) {
    if (spec == "full") return Status::invalid_argument("'full' is the baseline; leave it out");
  }
  const PplFiles files = ppl_files(input);
  KVSIM_ASSIGN_OR_RETURN(kernels::LoadedLlama llama,
                         kernels::load_llama(files.model, files.tokenizer));
  KVSIM_ASSIGN_OR_RETURN(std::string text, kernels::read_text_file(files.text));
  const std::vector<int> tokens = kernels::ppl_tokens(*llama.tokenizer, text, input.max_tokens);
  KVSIM_ASSIGN_OR_RETURN(std::vector<kernels::KvPolicy> policies,
                         kernels::expand_ppl_policies(input.policies, input.budgets));
  kernels::PerplexityHooks hooks;
  hooks.progress = progress;
  hooks.stop = stop;
  PplStudy study;
  study.input = input;
  KVSIM_ASSIGN_OR_RETURN(
      study.report,
      kernels::measure_perplexity(*llama.model, tokens, {input.ctx, input.store}, policies, hooks));
  study.full_ppl = study.report.results.front().ppl;
  study.full_kv_bytes = study.report.results.front().kv_bytes;
  KVSIM_ASSIGN_OR_RETURN(study.curves, ppl_curves(input, study.report));
  return study;
}

}  // namespace kvsim::gui
