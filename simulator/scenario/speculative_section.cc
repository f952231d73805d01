#include "simulator/scenario/speculative_section.h"

#include <fmt/format.h>

#include <vector>

#include "core/config/config_reader.h"
#include "simulator/scenario/scenario.h"

namespace kvsim::sim {
namespace {

// speculative.acceptance: one number or a list of numbers.
Status read_rates(const ConfigNode& node, std::vector<double>* out) {
  const std::vector<ConfigNode> one = {node};
  const std::vector<ConfigNode>& items = node.is_sequence() ? node.items() : one;
  for (const ConfigNode& item : items) {
    double rate = 0;
    if (!item.is_scalar() || !parse_double(item.text(), &rate).is_ok()) {
      return error_at(item.mark(),
                      "speculative.acceptance: expected a rate or a list of per-position rates");
    }
    out->push_back(rate);
  }
  return Status::ok();
}

}  // namespace

Status read_speculative(const ConfigNode& node, const std::string& base_dir, uint64_t default_seed,
                        SpeculativeSection* out) {
  ConfigReader r(node, "speculative");
  SpeculativeConfig& config = out->config;
  r.required_with("method", &config.method, parse_into<parse_speculative_method>);
  r.required("num_speculative_tokens", &config.num_speculative_tokens, 1u, kMaxSpeculativeTokens);
  config.seed = default_seed;
  r.optional("seed", &config.seed, uint64_t{0}, UINT64_MAX);
  const ConfigNode* acceptance = r.child("acceptance");
  const ConfigNode* draft = r.child("draft_model");
  KVSIM_RETURN_IF_ERROR(r.finish());
  out->present = true;
  out->mark = node.mark();
  if (acceptance == nullptr) {
    return error_at(node.mark(),
                    "speculative: missing 'acceptance' (a per-position rate list such as vLLM's "
                    "spec-decode metrics print, or one rate p)");
  }
  std::vector<double> stated;
  KVSIM_RETURN_IF_ERROR(read_rates(*acceptance, &stated));
  auto rates = acceptance_rates(stated, config.num_speculative_tokens);
  if (!rates.is_ok()) return error_at(acceptance->mark(), rates.status().message());
  config.acceptance = *std::move(rates);
  const bool wants_draft = config.method == SpeculativeMethod::kDraftModel;
  if (wants_draft && draft == nullptr) {
    return error_at(node.mark(), "speculative: method draft_model needs 'draft_model' (a model)");
  }
  if (!wants_draft && draft != nullptr) {
    return error_at(draft->mark(),
                    fmt::format("speculative.draft_model: method {} has no draft model (its "
                                "drafter is {}); use method draft_model",
                                speculative_method_name(config.method),
                                config.method == SpeculativeMethod::kNgram
                                    ? "a prompt lookup"
                                    : "a head of the target's checkpoint"));
  }
  if (draft != nullptr) {
    KVSIM_ASSIGN_OR_RETURN(out->draft_model,
                           read_preset_ref(*draft, "speculative.draft_model", base_dir));
  }
  return Status::ok();
}

}  // namespace kvsim::sim
