// The JSON of a perplexity measurement: what `kvsim ppl --json` prints and `kvsim.ppl()`
// (python/) returns: the tokens scored and one object per policy (full first).
#pragma once

#include <nlohmann/json.hpp>

#include "kernels/perplexity.h"

namespace kvsim::kernels {

nlohmann::json perplexity_report_json(const PerplexityReport& report);

}  // namespace kvsim::kernels
