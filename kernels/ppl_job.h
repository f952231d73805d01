// PplJob: one perplexity measurement as users describe it — files, KV storage, windows and
// the policies (each eviction policy optionally at several cache budgets). `kvsim ppl`, PPL
// sweeps (`kind: ppl`) and the GUI's PPL view all run it through run_ppl_job().
//
// As YAML (a PPL sweep's base and points):
//   checkpoint: data:models/kjv-tiny/model.bin
//   tokenizer:  data:models/kjv-tiny/tokenizer.bin
//   text:       data:models/kjv-tiny/eval_a.txt
//   ctx: 512            # window length in tokens (0 = the model's seq_len)
//   max_tokens: 16384   # score only the first N tokens (0 = all)
//   kv_layout: nd       # nd | nz
//   kv_dtype: fp32      # fp32 | fp16
//   block_size: 16
//   policy: sink:4,60   # one spec, or `policies: [..]`
//   budget: 64          # optional: the policy resized to this cache budget (`budgets: [..]`)
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/config/config_node.h"
#include "kernels/kv_policy.h"
#include "kernels/llama_bundle.h"
#include "kernels/perplexity.h"

namespace kvsim::kernels {

struct PplJob {
  std::string checkpoint = kDefaultCheckpoint;
  std::string tokenizer = kDefaultTokenizer;
  std::string text = kDefaultEvalText;
  std::string kv_layout = "nd";
  std::string kv_dtype = "fp32";
  uint32_t block_size = 16;
  uint32_t ctx = 0;
  uint64_t max_tokens = 0;
  std::vector<std::string> policies;  // kvsim ppl specs
  std::vector<uint64_t> budgets;      // each evicting policy once per budget
};

// Reads a job from YAML (fields above); relative file paths resolve against base_dir.
StatusOr<PplJob> ppl_job_from_config(const ConfigNode& node, const std::string& base_dir);

// The policies to measure: each spec once; with budgets, each *evicting* spec once per budget
// (kv_policy_at_budget), spec-major, budget-minor. Errors name the spec or the budget.
StatusOr<std::vector<KvPolicy>> expand_ppl_policies(const std::vector<std::string>& specs,
                                                    const std::vector<uint64_t>& budgets);

// The tokens scored: the text encoded without BOS, EOS or dummy prefix (measure_perplexity
// adds BOS per window), cut to the first max_tokens when max_tokens > 0.
std::vector<int> ppl_tokens(const Tokenizer& tokenizer, const std::string& text,
                            uint64_t max_tokens);

struct PplJobResult {
  PerplexityReport report;
  uint32_t ctx = 0;        // the window length used
  std::string checkpoint;  // the model measured: its checkpoint as given (a "data:" path or a
  LlamaConfig model;       // file) and its shape
};

// True when `checkpoint` is the bundled kjv-tiny model (kDefaultCheckpoint).
bool is_bundled_checkpoint(const std::string& checkpoint);

// `hooks` follow and stop the measurement (the GUI's progress bar and Cancel).
StatusOr<PplJobResult> run_ppl_job(const PplJob& job, const PerplexityHooks& hooks = {});

// Numeric results of a one-policy job for tables: ppl, delta_ppl, kl, top1_agreement,
// kv_bytes and budget_tokens of the policy; full_ppl and full_kv_bytes of the baseline;
// kv_bytes_saved = full_kv_bytes - kv_bytes; tokens.
std::map<std::string, double> ppl_job_metrics(const PerplexityReport& report);

}  // namespace kvsim::kernels
