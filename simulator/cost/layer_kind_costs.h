// LayerKindCosts: a model's layers grouped by what their token mixer reads each iteration, and
// the bytes it reads, for the cost models (operator and roofline).
//
//   kind        layers                      reads per layer, per device
//   full        full and MLA attention      every cached key: full_kv_bytes_per_token_layer
//   sliding     sliding_window W attention  the last W keys (BatchShape's window sums)
//   recurrent   mamba, linear attention     its sequences' states: state_bytes_per_layer each
//   none        no mixer (Nemotron-H's MLP-only layers)
//
// The bytes are the capacity result's (core/engine/capacity.h), so KV dtype, quantization groups
// and NZ padding are as the cache holds them: a uniform model's full bytes are
// kv_bytes_per_block / block_size / attention layers, exactly the figure the cost models used
// before layer groups existed; a hybrid's come from its KV cache plan's specs
// (core/model/kv_groups.h, real_page_bytes / block_size of each spec — not the page padded to the
// common size, which is memory held, not read — and a recurrent spec's real page is one state).
#pragma once

#include <cstdint>

#include "core/base/status.h"
#include "core/engine/capacity.h"
#include "core/model/model_spec.h"

namespace kvsim::sim {

struct LayerKindCosts {
  uint32_t full_layers = 0;                  // full + mla attention layers
  uint32_t sliding_layers = 0;               // sliding-window attention layers
  uint32_t recurrent_layers = 0;             // recurrent (constant state) layers
  uint32_t none_layers = 0;                  // layers without a token mixer
  uint32_t window_tokens = 0;                // the sliding layers' window W (0 when there are none)
  double full_kv_bytes_per_token_layer = 0;  // per device, one full layer
  double sliding_kv_bytes_per_token_layer = 0;  // per device, one sliding layer
  double state_bytes_per_layer = 0;             // per device, one sequence's state, one layer

  uint32_t attention_layers() const { return full_layers + sliding_layers; }
};

// The sliding window a cost model times the model's sliding layers with: 0 for a model that
// is not hybrid (a uniform sliding window is the retention policy's: the scheduler already
// clamps the context, simulator/setup/engine_setup.cc), else the one window of its sliding
// groups (0 when it has none). More than one distinct window is an error naming them.
StatusOr<uint32_t> cost_window_tokens(const ModelSpec& model);

// The model's layer kinds and bytes. Precondition: `capacity` is compute_capacity's answer for
// `model` (a hybrid model's carries its plan) and cost_window_tokens(model) succeeded.
LayerKindCosts layer_kind_costs(const ModelSpec& model, const CapacityResult& capacity);

}  // namespace kvsim::sim
