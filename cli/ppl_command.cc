// kvsim ppl: teacher-forced perplexity of a text under KV cache policies (eviction and
// quantization), each against full attention on the same windows (kernels/perplexity.h).
// --budgets runs every eviction policy at every cache budget: the data of a PPL-vs-budget plot.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cli/llama_options.h"
#include "core/base/text_format.h"
#include "kernels/ppl_job.h"
#include "kernels/ppl_json.h"

namespace kvsim::cli {
namespace {

struct PplOptions {
  LlamaOptions llama;
  std::string text = kernels::kDefaultEvalText;
  uint32_t ctx = 0;
  uint64_t max_tokens = 0;
  std::vector<std::string> policies;
  std::vector<uint64_t> budgets;
  bool json = false;
};

// Which model was measured, and how to measure another: any llama2.c checkpoint.
void print_model(const kernels::PplJobResult& result) {
  const kernels::LlamaConfig& c = result.model;
  std::printf("Model    %s: %s\n", result.checkpoint.c_str(),
              kernels::is_bundled_checkpoint(result.checkpoint)
                  ? "kvsim's bundled kjv-tiny, a LLaMA trained on the King James Bible"
                  : "a llama2.c checkpoint");
  std::printf(
      "         %u layers, dim %u, %u query / %u KV heads, FFN %u, vocab %u, %u positions, "
      "%s parameters\n",
      c.n_layers, c.dim, c.n_heads, c.n_kv_heads, c.hidden_dim, c.vocab_size, c.seq_len,
      format_count(c.num_params()).c_str());
  std::printf(
      "         another model: --checkpoint model.bin --tokenizer tokenizer.bin in "
      "llama2.c's format (export.py --version 0, fp32)\n\n");
}

void print_text(const kernels::PerplexityReport& report, uint32_t ctx) {
  std::printf("Perplexity over %s tokens, windows of %u tokens from BOS\n\n",
              format_count(report.tokens).c_str(), ctx);
  std::printf("%-16s %7s %9s %10s %10s %7s %12s\n", "policy", "budget", "ppl", "delta_ppl",
              "KL(full||p)", "top-1", "KV bytes/seq");
  for (const kernels::PolicyResult& r : report.results) {
    const std::string budget = r.budget_tokens ? std::to_string(*r.budget_tokens) : "-";
    std::printf("%-16s %7s %9.4f %+10.4f %10.5f %6.2f%% %12s\n", r.policy.c_str(), budget.c_str(),
                r.ppl, r.delta_ppl, r.kl, 100.0 * r.top1_agreement,
                format_count(r.kv_bytes).c_str());
  }
}

int run_ppl(const PplOptions& o) {
  kernels::PplJob job;
  job.checkpoint = o.llama.checkpoint;
  job.tokenizer = o.llama.tokenizer;
  job.text = o.text;
  job.kv_layout = o.llama.kv_layout;
  job.kv_dtype = o.llama.kv_dtype;
  job.block_size = o.llama.block_size;
  job.ctx = o.ctx;
  job.max_tokens = o.max_tokens;
  job.policies = o.policies;
  job.budgets = o.budgets;
  auto result = kernels::run_ppl_job(job);
  if (!result.is_ok()) return report_error(result.status());
  if (o.json) {
    std::printf("%s\n", kernels::ppl_job_json(*result).dump(2).c_str());
  } else {
    print_model(*result);
    print_text(result->report, result->ctx);
  }
  return kExitOk;
}

}  // namespace

void register_ppl_command(CLI::App& app, CommandFn* chosen) {
  auto options = std::make_shared<PplOptions>();
  CLI::App* command =
      app.add_subcommand("ppl", "perplexity of a text under KV cache policies, against full");
  add_llama_options(command, &options->llama);
  command->add_option("--text", options->text, "text file to score")->capture_default_str();
  command->add_option("--ctx", options->ctx, "window length in tokens (default: seq_len)");
  command->add_option("--max-tokens", options->max_tokens, "score only the first N tokens");
  command
      ->add_option("--policy", options->policies,
                   "full, window:W, sink:S,W, h2o:H,R, int8, int4:G,R (repeatable)")
      ->required();
  command->add_option("--budgets", options->budgets, "cache budgets in tokens (e.g. 16,32,64)")
      ->delimiter(',')
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  command->add_flag("--json", options->json, "print JSON");
  command->callback([options, chosen] { *chosen = [options] { return run_ppl(*options); }; });
}

}  // namespace kvsim::cli
