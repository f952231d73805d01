// The JSON of a perplexity measurement: what `kvsim ppl --json` prints and `kvsim.ppl()`
// (python/) returns: the model measured, the tokens scored and one object per policy (full
// first).
#pragma once

#include <nlohmann/json.hpp>

#include "kernels/perplexity.h"
#include "kernels/ppl_job.h"

namespace kvsim::kernels {

// {"model": {checkpoint, bundled, dim, hidden_dim, layers, heads, kv_heads, vocab_size,
//  seq_len, params}, "tokens": N, "results": [...]}
nlohmann::json ppl_job_json(const PplJobResult& result);

}  // namespace kvsim::kernels
