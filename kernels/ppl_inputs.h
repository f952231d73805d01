// What `kvsim ppl` and the GUI's PPL view prepare before measure_perplexity(): the tiny model
// and its tokenizer (llama2.c files), the text to score, its tokens, and the policy list
// expanded over cache budgets. One implementation, so that both front ends score the same
// tokens under the same policies and print the same numbers.
//
// Paths may be "data:..." (core/data_dir.h). Tokens are the text encoded without BOS, EOS or
// dummy prefix (perplexity.h adds BOS per window), cut to the first max_tokens when > 0.
// Policies: each spec once; with budgets, each *evicting* spec once per budget
// (kv_policy_at_budget), in the order given: spec-major, budget-minor.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "kernels/kv_policy.h"
#include "kernels/llama_model.h"
#include "kernels/tokenizer.h"

namespace kvsim::kernels {

struct LoadedLlama {
  std::unique_ptr<LlamaModel> model;
  std::unique_ptr<Tokenizer> tokenizer;
};

// Loads and validates both files (the tokenizer with the checkpoint's vocabulary size).
StatusOr<LoadedLlama> load_llama(const std::string& checkpoint, const std::string& tokenizer);

// The whole file; a missing file is not_found naming the path as given.
StatusOr<std::string> read_text_file(const std::string& path);

std::vector<int> ppl_tokens(const Tokenizer& tokenizer, const std::string& text,
                            uint64_t max_tokens);

// Errors name the spec (unknown policy) or the budget that leaves no room.
StatusOr<std::vector<KvPolicy>> expand_policies(const std::vector<std::string>& specs,
                                                const std::vector<uint64_t>& budgets);

}  // namespace kvsim::kernels
