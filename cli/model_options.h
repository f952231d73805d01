// Options shared by the commands that take a model: a preset name or YAML path, and/or a
// model defined (or overridden) by hand with --layers, --kv-heads and --head-dim.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "core/base/status.h"
#include "core/model/device_spec.h"
#include "core/model/dtype.h"
#include "core/model/model_spec.h"

namespace kvsim::cli {

struct ModelOptions {
  std::string model;                 // preset name or YAML path; empty = hand-defined
  std::optional<uint32_t> layers;    // overrides num_layers
  std::optional<uint32_t> kv_heads;  // overrides num_kv_heads (and the attention kind)
  std::optional<uint32_t> head_dim;  // overrides head_dim
};

void add_model_options(CLI::App* command, ModelOptions* options);

// The model the options describe. A hand-defined model (no --model) needs all three shape
// options and has no parameter count, so device budgets need --kv-budget-bytes.
StatusOr<ModelSpec> resolve_model(const ModelOptions& options);

// The dtype the model's weights run in: --weight-dtype's when given (non-empty), else the
// model's own 16-bit dtype or fp16 (run_weight_dtype, core/model/weight_memory.h).
StatusOr<DType> resolve_weight_dtype(const std::string& flag, const ModelSpec& model);

// A device preset by name or path; "" gives an empty optional (no device).
StatusOr<std::optional<DeviceSpec>> resolve_optional_device(const std::string& name_or_path);

}  // namespace kvsim::cli
