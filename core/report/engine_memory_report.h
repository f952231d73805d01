// The engine's KV budget as text: each set-aside term with its formula and where in the
// engine's code it comes from, so `kvsim capacity` shows the derivation step by step.
#pragma once

#include <string>

#include "core/engine/engine_memory.h"

namespace kvsim {

// "engine  vllm 0.28.0 (`vllm serve`): max_model_len ..., max_num_batched_tokens ..." and the
// budget derivation, one term per line, ending with the KV budget.
std::string engine_budget_report(const EngineBudget& budget);

// One line: "vllm 0.28.0" / "sglang 0.5.6".
std::string engine_label(const EngineBudget& budget);

}  // namespace kvsim
