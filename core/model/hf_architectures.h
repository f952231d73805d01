// The importer's architecture readers (internal to core; core/model/hf_config.h is the interface).
//
// Each reader turns one architecture's config fields into the ModelSpec's shape and layer
// groups and counts its parameters (core/model/param_count.h), following that architecture's
// transformers modeling code. Decoder-only transformers live in core/model/hf_decoders.cc, the
// recurrent hybrids in core/model/hf_hybrids.cc; shared pieces are declared here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/model/hf_config.h"
#include "core/model/hf_fields.h"

namespace kvsim {

using HfReader = void (*)(HfFields& fields, HfImport* out);

struct HfArchitecture {
  std::string_view model_type;  // config.json "model_type"
  std::string_view class_name;  // config.json "architectures"[0]
  HfReader read;
};

// Every architecture the importer reads, decoders then hybrids.
std::span<const HfArchitecture> hf_decoder_architectures();
std::span<const HfArchitecture> hf_hybrid_architectures();

// The fields nearly every decoder config has (Llama-style keys).
struct HfShape {
  uint32_t layers = 0;
  uint32_t hidden = 0;
  uint32_t heads = 0;
  uint32_t kv_heads = 0;  // num_key_value_heads, default heads
  uint32_t head_dim = 0;  // head_dim, default hidden / heads
  uint32_t intermediate = 0;
  uint32_t vocab = 0;
  uint32_t positions = 0;  // max_position_embeddings as written (before rope scaling)
  bool tie = false;        // tie_word_embeddings (root or text config), default per architecture
};

// What an architecture's config class fills in when a field is absent; 0 = required.
struct HfDefaults {
  bool tie = false;
  uint32_t intermediate = 0;
  uint32_t vocab = 0;
  uint32_t positions = 0;
};

HfShape read_shape(HfFields& f, const HfDefaults& defaults = {});

// The checkpoint's dtype from the root's dtype (transformers >= 4.56 writes that name) or
// torch_dtype: "float16", "bfloat16" or "float32"; empty when absent or another value.
std::optional<DType> hf_checkpoint_dtype(const nlohmann::json& root);

// Fills the spec's uniform fields from the shape (attention kind from the head counts) and
// the context length vLLM derives (rope scaling, see core/model/hf_config.h).
void apply_shape(HfFields& f, const HfShape& shape, ModelSpec* model);

// Layer groups from one kind per layer, in order of first appearance. Attention groups take
// the model's KV heads and head_dim, sliding ones `window`, recurrent ones `recurrent` (its
// num_layers is set here). A model whose layers all cache alike keeps no groups (uniform;
// all-sliding sets sliding_window_tokens).
void set_layer_groups(HfFields& f, const std::vector<LayerKind>& kinds, uint32_t window,
                      const LayerGroup& recurrent, ModelSpec* model);

// The kind of each layer from config.json's layer_types ("full_attention",
// "sliding_attention", "linear_attention" -> recurrent); empty when the field is absent.
std::vector<LayerKind> layer_types(HfFields& f, uint32_t layers);

// quantization_config (see core/model/hf_config.h) applied to the counted parameters; leaves `out`
// empty when the config has none. Errors name the field.
Status read_hf_quantization(const nlohmann::json& root, const std::string& file,
                            const ParamCount& params, WeightQuantization* out);

// Embedding, LM head (unless tied) and the final norm of `norm_params` parameters.
void add_embeddings(const HfShape& shape, uint64_t norm_params, ParamCount* count);

}  // namespace kvsim
