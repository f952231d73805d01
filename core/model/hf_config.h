// The Hugging Face importer: a transformers config.json in, a ModelSpec out.
//
// Reads (model_type, or the architectures list when model_type is absent):
//   llama (Llama 1-3.x, rope scaling), mistral, mixtral, qwen2 (Qwen2/2.5), qwen2_moe,
//   qwen3, qwen3_moe, deepseek_v2, deepseek_v3 (MLA, shared experts, first dense layers),
//   gemma2, gemma3 / gemma3_text (text_config, interleaved sliding-window layers), gpt_oss
//   (alternating sliding/full layers, sinks, MoE), phi3, opt, gpt2, and the hybrids
//   nemotron_h (hybrid_override_pattern), jamba (attention/expert periods), qwen3_next
//   (layer_types or full_attention_interval).
// What it derives:
//   - the shape and the layer groups (core/model/model_spec.h). A layer is sliding when the
//     config's layer_types says "sliding_attention", or by the architecture's rule (Gemma-2 even
//     layers, Gemma-3 all but every sliding_window_pattern-th, Mistral and Phi-3 every layer when
//     sliding_window is set; Qwen2 only with use_sliding_window);
//   - max_position_embeddings as vLLM derives the context: times the rope_scaling factor for
//     linear/dynamic scaling, original_max_position_embeddings x factor for yarn, unchanged for
//     llama3/longrope/su and for Gemma-3 (already scaled);
//   - the parameter count (core/model/param_count.h), total and active, from the transformers
//     modeling code: tied or untied embeddings, attention with the architecture's biases,
//     q/k norms and sinks, dense FFN or routed + shared experts and routers, norms, mixers,
//     and a multimodal checkpoint's vision tower (Gemma-3's SigLIP); DeepSeek's
//     multi-token-prediction layers are not loaded by engines and are not counted;
//   - weight quantization from quantization_config (core/model/model_spec.h WeightQuantization):
//       fp8      8 bits; weight_block_size [a, b] adds an fp32 scale per a x b block
//       awq      `bits` bits + per group_size weights an fp16 scale and a packed zero point
//       gptq     `bits` bits + per group_size an fp16 scale and a packed zero (qzeros are
//                stored for symmetric checkpoints too; g_idx, < 0.1%, is not counted)
//       mxfp4    4 bits + an 8-bit shared exponent per 32 weights
//       compressed-tensors  the first config group's weights: num_bits, group strategy
//     applied to the decoder's linear layers (attention, FFN, experts, mixers), except those
//     modules_to_not_convert names ("self_attn"); embeddings, the LM head, routers, norms and
//     biases stay in the run's weight dtype.
// Errors: a file that is not JSON names line:column; a missing or mistyped field names it
// (text_config.num_hidden_layers); an unsupported architecture names the supported ones.
// Non-standard NaN / Infinity tokens (Python's json writes them) read as null.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/model/model_spec.h"
#include "core/model/param_count.h"

namespace kvsim {

struct HfImport {
  ModelSpec model;
  ParamCount params;
  std::string architecture;  // the class name, e.g. "LlamaForCausalLM"
  std::string model_type;    // e.g. "llama"
  std::string description;   // one line for the YAML's description
};

// Imports config.json text; `file` names it in messages, `name` becomes the model's name
// (and `source`, when empty, says the model was imported from `file`).
StatusOr<HfImport> import_hf_config(std::string_view json_text, const std::string& file,
                                    const std::string& name);

// Reads and imports a file; the name is the file's stem unless given.
StatusOr<HfImport> import_hf_config_file(const std::string& path, const std::string& name = "");

// The kvsim model YAML of an import (what `kvsim model import` prints and
// scripts/import-hf-presets commits): comment lines naming `config_path` and the parameter
// breakdown, then the model's map (core/model/model_config.h), which loads back to the same
// ModelSpec.
std::string imported_model_yaml(const HfImport& imported, const std::string& config_path);

// "LlamaForCausalLM (llama), ...": what the importer reads, for messages and --help.
std::vector<std::string> supported_hf_architectures();

}  // namespace kvsim
