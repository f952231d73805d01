// What speculative decoding (simulator/engine/speculation.h) adds to an engine's setup: the
// draft network's time and its memory.
//
//   eagle, eagle3, mtp   the drafter is one decoder layer of the target's shape (EAGLE's head
//                        is a LlamaDecoderLayer over the target's hidden states; DeepSeek's
//                        MTP module is one more MoE layer): its passes are costed as the
//                        target cut to one layer, and it holds one layer more of weights
//                        ((num_params - embedding) / num_layers: vLLM loads the head beside
//                        the target) and of KV (vLLM gives the draft's attention layer its
//                        own pages in the same block tables, so a block is one layer larger).
//   draft_model          the draft preset's passes, weights (num_params) and KV: its KV per
//                        token in the target's layers, rounded up (one block table for both).
//   ngram                nothing: a CPU lookup.
// The memory model is the target with the draft's layers added (draft_memory_model): the
// capacity planner then sizes weights, pool and blocks with them as for any model. Hybrid
// targets are refused (their groups would need the draft's own group).
#pragma once

#include <memory>

#include "core/base/status.h"
#include "core/engine/capacity.h"
#include "core/model/device_spec.h"
#include "core/model/model_spec.h"
#include "simulator/scenario/speculative_section.h"

namespace kvsim::sim {

// The model whose passes the drafter runs (the cost model's input); an error when the target
// is hybrid or the draft preset cannot be loaded.
StatusOr<ModelSpec> draft_cost_model_spec(const ModelSpec& target,
                                          const SpeculativeSection& speculative);

// The drafter's cost model takes compute_capacity() of the draft model alone (its KV per
// token and weights) under the run's query: the cost models divide a capacity's KV bytes by
// the model's layers, so the pool's (target and drafter) would make each draft layer read the
// whole target's KV.

// The target with the drafter's weights and KV layers added (`draft`: draft_cost_model_spec's
// result); ngram: the target itself.
ModelSpec draft_memory_model(const ModelSpec& target, const ModelSpec& draft,
                             const SpeculativeSection& speculative);

}  // namespace kvsim::sim
