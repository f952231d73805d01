#include "simulator/setup/speculative_setup.h"

#include <fmt/format.h>

#include "core/base/checked_math.h"
#include "core/model/kv_shape.h"
#include "core/model/weight_memory.h"
#include "simulator/setup/engine_setup.h"

namespace kvsim::sim {
namespace {

// The parameters of one decoder layer of the target, on average (its weights less the
// embedding and LM head, over its layers).
uint64_t one_layer_params(const ModelSpec& model) {
  const uint64_t embedding = embedding_params(model);
  const uint64_t body = model.num_params > embedding ? model.num_params - embedding : 0;
  return body / model.num_layers;
}

// KV bits per token of one device's cache, TP 1 (the ratio of two models' is what matters).
uint64_t kv_bits_per_token_fp16(const ModelSpec& model) {
  return kv_bits_per_token(kv_shape(model, 1), KvStorage{});
}

// A quantized checkpoint's drafter layer is quantized as the target's layers are: the layer's
// share of the target's quantized parameters.
uint64_t quantized_layer_params(const ModelSpec& model) {
  if (model.weight_quantization.method.empty()) return 0;
  return model.weight_quantization.num_params / model.num_layers;
}

}  // namespace

StatusOr<ModelSpec> draft_cost_model_spec(const ModelSpec& target,
                                          const SpeculativeSection& speculative) {
  if (is_hybrid(target)) {
    return Status::invalid_argument(fmt::format(
        "speculative: model '{}' is hybrid ({}); speculative decoding is modelled for uniform "
        "models only (the draft's KV would need a cache group of its own)",
        target.name, describe_layer_groups(target)));
  }
  if (speculative.config.method == SpeculativeMethod::kDraftModel) {
    return resolve_model(speculative.draft_model);
  }
  ModelSpec head = target;
  head.name = target.name + "-" + std::string(speculative_method_name(speculative.config.method));
  head.num_params = one_layer_params(target) + embedding_params(target);
  head.num_active_params = head.num_params;
  head.weight_quantization.num_params = quantized_layer_params(target);
  if (head.weight_quantization.num_params == 0) head.weight_quantization = {};
  head.num_layers = 1;
  head.num_dense_layers = 0;  // an MTP module's FFN is an MoE layer (DeepSeek-V3)
  return head;
}

ModelSpec draft_memory_model(const ModelSpec& target, const ModelSpec& draft,
                             const SpeculativeSection& speculative) {
  ModelSpec model = target;
  switch (speculative.config.method) {
    case SpeculativeMethod::kNgram:
      return model;
    case SpeculativeMethod::kDraftModel: {
      const uint64_t per_layer = kv_bits_per_token_fp16(target) / target.num_layers;
      model.num_layers += static_cast<uint32_t>(ceil_div(kv_bits_per_token_fp16(draft), per_layer));
      model.num_params += draft.num_params;
      model.num_active_params += draft.num_active_params;
      return model;
    }
    default: {
      const uint64_t layer = one_layer_params(target);
      model.num_layers += 1;
      model.num_params += layer;
      model.num_active_params += layer;
      model.weight_quantization.num_params += quantized_layer_params(target);
      return model;
    }
  }
}

}  // namespace kvsim::sim
