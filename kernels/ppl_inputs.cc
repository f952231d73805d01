#include "kernels/ppl_inputs.h"

#include <fstream>
#include <sstream>

#include "core/data_dir.h"
#include "kernels/llama_checkpoint.h"

namespace kvsim::kernels {

StatusOr<LoadedLlama> load_llama(const std::string& checkpoint, const std::string& tokenizer) {
  KVSIM_ASSIGN_OR_RETURN(LlamaWeights weights,
                         load_llama_checkpoint(resolve_data_path(checkpoint)));
  const uint32_t vocab_size = weights.config.vocab_size;
  KVSIM_ASSIGN_OR_RETURN(Tokenizer loaded_tokenizer,
                         Tokenizer::load(resolve_data_path(tokenizer), vocab_size));
  LoadedLlama loaded;
  loaded.model = std::make_unique<LlamaModel>(std::move(weights));
  loaded.tokenizer = std::make_unique<Tokenizer>(std::move(loaded_tokenizer));
  return loaded;
}

StatusOr<std::string> read_text_file(const std::string& path) {
  std::ifstream in(resolve_data_path(path), std::ios::binary);
  if (!in) return Status::not_found(path + ": cannot open the text file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<int> ppl_tokens(const Tokenizer& tokenizer, const std::string& text,
                            uint64_t max_tokens) {
  std::vector<int> tokens =
      tokenizer.encode(text, /*bos=*/false, /*eos=*/false, /*dummy_prefix=*/false);
  if (max_tokens > 0 && tokens.size() > max_tokens) tokens.resize(max_tokens);
  return tokens;
}

StatusOr<std::vector<KvPolicy>> expand_policies(const std::vector<std::string>& specs,
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
      if (!at_budget.is_ok()) return at_budget.status().with_context("--budgets");
      out.push_back(std::move(at_budget).value());
    }
  }
  return out;
}

}  // namespace kvsim::kernels
