// Batch specs: a batch written as request groups, for `kvsim cost` and the GUI's cost bar.
//
//   decode:64x2048          64 sequences decoding one token each after 2048 cached tokens
//   prefill:2x4096+512      2 prompt chunks of 4096 new tokens after 512 cached ones, each the
//                           last of its prompt (it samples the first output token)
//   chunk:1x2048+0          a prompt chunk with more of the prompt to come (samples nothing)
//   verify:64x4+2048        64 speculative steps, each verifying 3 drafts with the newest
//                           token (4 tokens, 4 sampled rows) after 2048 cached ones
// Groups are comma-separated; "+C" is optional (0 cached). Counts and tokens are >= 1.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "simulator/engine/cost_model.h"

namespace kvsim::sim {

// The shape the scheduler would build for the spec, with the model's sliding window
// `window_tokens` (simulator/cost/layer_kind_costs.h cost_window_tokens; 0 = none); errors
// quote the bad group. `draft`, when given: the batch of a speculative drafter's later passes,
// as the scheduler builds StepPlan::draft_shape (one token per sequence, after its cached and
// new tokens).
StatusOr<BatchShape> parse_batch_spec(std::string_view spec, uint32_t window_tokens = 0,
                                      BatchShape* draft = nullptr);

// "64 sequences: 0 prefill chunks (0 tokens), 64 decodes; 64 new tokens, 131072 cached, 64 sampled"
std::string describe_batch(const BatchShape& batch);

}  // namespace kvsim::sim
