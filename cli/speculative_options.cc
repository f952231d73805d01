#include "cli/speculative_options.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>

#include "core/config/config_reader.h"

namespace kvsim::cli {

void add_speculative_options(CLI::App* command, SpeculativeOptions* options) {
  command->add_option("--speculative", options->speculative,
                      "a speculative drafter: METHOD:K (eagle eagle3 mtp ngram draft_model), "
                      "e.g. eagle3:3");
  command->add_option("--draft-model", options->draft_model,
                      "--speculative draft_model:K: the draft's preset or YAML file");
}

StatusOr<sim::SpeculativeSection> speculative_section(const SpeculativeOptions& o) {
  sim::SpeculativeSection section;
  const size_t colon = o.speculative.find(':');
  uint64_t k = 0;
  if (colon == std::string::npos || !parse_uint64(o.speculative.substr(colon + 1), &k).is_ok() ||
      k == 0 || k > sim::kMaxSpeculativeTokens) {
    return Status::invalid_argument(
        fmt::format("--speculative '{}': expected METHOD:K with K in [1, {}], e.g. eagle3:3",
                    o.speculative, sim::kMaxSpeculativeTokens));
  }
  section.config.num_speculative_tokens = static_cast<uint32_t>(k);
  KVSIM_ASSIGN_OR_RETURN(section.config.method,
                         sim::parse_speculative_method(o.speculative.substr(0, colon)));
  const bool wants_draft = section.config.method == sim::SpeculativeMethod::kDraftModel;
  if (wants_draft != !o.draft_model.empty()) {
    return Status::invalid_argument(
        "--draft-model goes with --speculative draft_model:K, and only with it");
  }
  section.present = true;
  if (wants_draft) section.draft_model = ConfigNode::scalar(o.draft_model, {"--draft-model"});
  return section;
}

}  // namespace kvsim::cli
