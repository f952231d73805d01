#include "kernels/ppl_json.h"

#include "core/report/capacity_json.h"

namespace kvsim::kernels {

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

}  // namespace kvsim::kernels
