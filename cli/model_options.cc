#include "cli/model_options.h"

#include <fmt/format.h>

#include "core/model/load_spec.h"
#include "core/model/weight_memory.h"

namespace kvsim::cli {

void add_model_options(CLI::App* command, ModelOptions* options) {
  command->add_option("--model", options->model,
                      "model preset name, YAML file or Hugging Face config.json");
  command->add_option("--layers", options->layers, "number of layers (defines or overrides)")
      ->check(CLI::Range(1, 10000));
  command->add_option("--kv-heads", options->kv_heads, "KV heads (defines or overrides)")
      ->check(CLI::Range(1, 65536));
  command->add_option("--head-dim", options->head_dim, "head dimension (defines or overrides)")
      ->check(CLI::Range(1, 65536));
}

StatusOr<ModelSpec> resolve_model(const ModelOptions& options) {
  ModelSpec model;
  if (!options.model.empty()) {
    KVSIM_ASSIGN_OR_RETURN(model, load_model(options.model));
  } else {
    if (!options.layers || !options.kv_heads || !options.head_dim) {
      return Status::invalid_argument(
          "give --model NAME, or define a model with --layers, --kv-heads and --head-dim");
    }
    model.name = "custom";
    model.num_attention_heads = *options.kv_heads;
  }
  if (!model.layer_groups.empty() && (options.layers || options.kv_heads || options.head_dim)) {
    return Status::invalid_argument(
        fmt::format("--layers, --kv-heads and --head-dim do not apply to '{}', whose layer "
                    "groups differ ({})",
                    model.name, describe_layer_groups(model)));
  }
  if (model.attention == AttentionKind::kMla && (options.kv_heads || options.head_dim)) {
    return Status::invalid_argument(
        fmt::format("--kv-heads and --head-dim do not apply to the MLA model '{}' (its cache "
                    "holds one latent per layer)",
                    model.name));
  }
  if (options.layers) model.num_layers = *options.layers;
  if (options.head_dim) model.head_dim = *options.head_dim;
  if (options.kv_heads) {
    model.num_kv_heads = *options.kv_heads;
    model.attention = model.num_kv_heads == model.num_attention_heads ? AttentionKind::kMha
                      : model.num_kv_heads == 1                       ? AttentionKind::kMqa
                                                                      : AttentionKind::kGqa;
  }
  KVSIM_RETURN_IF_ERROR(validate_model(model));
  return model;
}

StatusOr<DType> resolve_weight_dtype(const std::string& flag, const ModelSpec& model) {
  std::optional<DType> stated;
  if (!flag.empty()) {
    auto parsed = parse_dtype(flag);
    if (!parsed.is_ok()) return parsed.status().with_context("--weight-dtype");
    stated = *parsed;
  }
  return run_weight_dtype(model, stated);
}

StatusOr<std::optional<DeviceSpec>> resolve_optional_device(const std::string& name_or_path) {
  if (name_or_path.empty()) return std::optional<DeviceSpec>();
  KVSIM_ASSIGN_OR_RETURN(DeviceSpec device, load_device(name_or_path));
  return std::optional<DeviceSpec>(std::move(device));
}

}  // namespace kvsim::cli
