#include "kernels/ppl_json.h"

#include "core/report/capacity_json.h"

namespace kvsim::kernels {
namespace {

nlohmann::json perplexity_report_json(const PerplexityReport& report) {
  nlohmann::json out;
  out["tokens"] = report.tokens;
  out["results"] = nlohmann::json::array();
  for (const PolicyResult& r : report.results) {
    out["results"].push_back({{"policy", r.policy},
                              {"budget_tokens", json_or_null(r.budget_tokens)},
                              {"ppl", r.ppl},
                              {"delta_ppl", r.delta_ppl},
                              {"kl", r.kl},
                              {"top1_agreement", r.top1_agreement},
                              {"kv_bytes", r.kv_bytes}});
  }
  return out;
}

}  // namespace

nlohmann::json ppl_job_json(const PplJobResult& result) {
  const LlamaConfig& c = result.model;
  nlohmann::json out = {{"model",
                         {{"checkpoint", result.checkpoint},
                          {"bundled", is_bundled_checkpoint(result.checkpoint)},
                          {"dim", c.dim},
                          {"hidden_dim", c.hidden_dim},
                          {"layers", c.n_layers},
                          {"heads", c.n_heads},
                          {"kv_heads", c.n_kv_heads},
                          {"vocab_size", c.vocab_size},
                          {"seq_len", c.seq_len},
                          {"params", c.num_params()}}}};
  out.update(perplexity_report_json(result.report));
  return out;
}

}  // namespace kvsim::kernels
