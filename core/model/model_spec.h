// ModelSpec: the shape of a transformer as far as the KV cache, the weights and the cost model
// care.
//
// Loaded once from YAML (core/model/device_config.h) or imported from a Hugging Face config.json
// (core/model/hf_config.h), validated, immutable afterwards.
//
// Layer groups. A model's layers fall into groups that cache differently:
//
//   kind            cached per layer                                   grows with
//   full            K and V: kv_heads x (head_dim + v_head_dim)        every token
//   sliding_window  the same, but only the last `window_tokens` tokens  min(tokens, W)
//   mla             one latent: kv_lora_rank + qk_rope_head_dim         every token
//   recurrent       one state per sequence: conv + ssm elements         nothing (constant)
//   none            nothing (MLP-only layers, e.g. Nemotron-H's "-")    nothing
//
// A uniform model (every hand-written preset) gives no `layer_groups`: its one group is
// derived from the uniform fields (model_layer_groups()): mla when attention is mla, else
// sliding_window when sliding_window_tokens > 0, else full, with the model's KV heads and
// head_dim over all num_layers. Such a model keeps today's single-group capacity path.
// A hybrid model (Gemma-2/3, gpt-oss, Nemotron-H, Jamba, Qwen3-Next) lists its groups; the
// groups' num_layers add up to num_layers and the uniform fields describe its attention
// layers. The capacity planner (core/model/kv_groups.h) turns the groups into vLLM's KV cache
// groups; the simulator's KvCacheCoordinator (core/cache/kv_cache_coordinator.h) allocates
// from the same groups.
//
// Invariants after loading: every count is > 0; heads % kv_heads == 0; the attention kind
// agrees with the head counts (mha: kv == heads, mqa: kv == 1, gqa: 1 < kv < heads,
// mla: kv_lora_rank > 0); num_active_params <= num_params; each group's fields fit its kind
// (validate_model lists the rules).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/model/dtype.h"

namespace kvsim {

enum class AttentionKind : uint8_t {
  kMha,  // multi-head: one KV head per query head
  kGqa,  // grouped-query: each KV head serves heads / kv_heads query heads
  kMqa,  // multi-query: one KV head for all query heads
  kMla,  // multi-head latent (DeepSeek): one compressed latent per token per layer
};

std::string_view attention_kind_name(AttentionKind kind);
StatusOr<AttentionKind> parse_attention_kind(std::string_view name);

// What one layer keeps in the cache (the table above). YAML names: "full", "sliding_window",
// "mla", "recurrent", "none".
enum class LayerKind : uint8_t { kFull, kSlidingWindow, kMla, kRecurrent, kNone };

std::string_view layer_kind_name(LayerKind kind);
StatusOr<LayerKind> parse_layer_kind(std::string_view name);

// One group of layers that cache alike. Fields that do not apply to the kind stay 0; the
// loader fills the attention fields a YAML group leaves out from the model's.
struct LayerGroup {
  LayerKind kind = LayerKind::kFull;
  uint32_t num_layers = 0;  // layers in the group

  // full / sliding_window: KV heads and the element counts of one K and one V head vector.
  uint32_t num_kv_heads = 0;   // default: the model's num_kv_heads
  uint32_t head_dim = 0;       // K head vector, elements; default: the model's head_dim
  uint32_t v_head_dim = 0;     // V head vector where it differs from head_dim; 0 = head_dim
  uint32_t window_tokens = 0;  // sliding_window only: the cache keeps the last W tokens

  // mla: the latent per token per layer is kv_lora_rank + qk_rope_head_dim elements.
  uint32_t kv_lora_rank = 0;      // default: the model's kv_lora_rank
  uint32_t qk_rope_head_dim = 0;  // default: the model's qk_rope_head_dim

  // recurrent: one state per sequence per layer, vLLM's mamba state shapes at TP 1
  // (vllm/model_executor/layers/mamba/mamba_utils.py), split over TP devices as vLLM does:
  //   conv state  conv_state_tokens x conv_dim               (conv_dim / tp on each device)
  //   ssm state   ssm_heads x ssm_head_dim x ssm_state_size  (ssm_heads / tp on each device)
  // mamba1 (Jamba): conv_dim = ssm_heads = d_inner, ssm_head_dim 1, ssm_state_size d_state;
  // mamba2 (Nemotron-H): conv_dim = d_inner + 2 n_groups d_state, ssm (heads, head_dim, state);
  // gated delta net (Qwen3-Next): conv_dim = 2 k_heads k_dim + v_heads v_dim,
  //   ssm (v_heads, v_dim, k_dim).
  uint32_t conv_state_tokens = 0;  // conv_kernel - 1
  uint32_t conv_dim = 0;
  uint32_t ssm_heads = 0;
  uint32_t ssm_head_dim = 0;
  uint32_t ssm_state_size = 0;
  DType state_dtype = DType::kBf16;  // dtype of both states (vLLM mamba_cache_dtype "auto":
                                     // the model's dtype); independent of the KV dtype

  bool operator==(const LayerGroup&) const = default;
};

// How a quantized checkpoint stores its weights (from config.json's quantization_config).
// Weight bits = num_params x bits(dtype) + ceil(num_params / group_size) x group_bits
//             + (model params - num_params) x bits(the dense weight dtype of the run).
struct WeightQuantization {
  std::string method;         // quant_method as the config names it ("fp8", "awq", "gptq",
                              // "mxfp4", ...); empty = not quantized
  DType dtype = DType::kFp8;  // storage width of a quantized weight (mxfp4: 4 bits, as int4)
  uint32_t group_size = 0;    // weights per scale group; 0 = no group scales counted
  uint32_t group_bits = 0;    // bits of scale (+ zero point) stored per group
  uint64_t num_params = 0;    // parameters stored quantized (the quantized linear layers)

  bool operator==(const WeightQuantization&) const = default;
};

struct ModelSpec {
  std::string name;    // preset name, e.g. "llama3-8b"
  std::string source;  // where the figures come from (config.json URL, paper); optional

  uint32_t num_layers = 0;               // transformer blocks (all kinds)
  uint32_t hidden_size = 0;              // model width (d_model)
  uint32_t num_attention_heads = 0;      // query heads
  uint32_t num_kv_heads = 0;             // KV heads (== heads for MHA, 1 for MQA)
  uint32_t head_dim = 0;                 // elements per head (MLA: qk_nope + qk_rope)
  uint32_t intermediate_size = 0;        // FFN inner width of a dense layer (MoE: of the
                                         // num_dense_layers dense layers, if any)
  uint32_t vocab_size = 0;               // tokens in the vocabulary
  uint32_t max_position_embeddings = 0;  // longest sequence the model accepts, tokens

  uint64_t num_params = 0;         // all parameters (weights held in memory)
  uint64_t num_active_params = 0;  // parameters used per token: all but the routed experts
                                   // not chosen (== num_params unless MoE); embeddings included

  AttentionKind attention = AttentionKind::kMha;
  uint32_t sliding_window_tokens = 0;  // uniform models: 0 = none; else every layer keeps
                                       // the last W tokens (Mistral). Hybrids use groups.

  // MLA only (attention == kMla): the cached latent per token per layer is
  // kv_lora_rank + qk_rope_head_dim elements.
  uint32_t kv_lora_rank = 0;
  uint32_t qk_rope_head_dim = 0;
  uint32_t q_lora_rank = 0;       // query low-rank width; 0 = queries projected directly
  uint32_t qk_nope_head_dim = 0;  // per-head query/key part without rotary embedding
  uint32_t v_head_dim = 0;        // per-head value width (compute only; 0 = head_dim)

  // Mixture of experts (0 = dense). A MoE layer has num_experts routed experts of width
  // moe_intermediate_size, of which num_experts_per_token run per token, plus shared experts
  // that always run. The first num_dense_layers layers (DeepSeek first_k_dense_replace;
  // Jamba's and Qwen2-MoE's non-MoE layers) have a dense FFN of intermediate_size.
  uint32_t num_experts = 0;                      // routed experts per MoE layer
  uint32_t num_experts_per_token = 0;            // top-k
  uint32_t num_shared_experts = 0;               // always-active experts per MoE layer
  uint32_t moe_intermediate_size = 0;            // one routed expert's FFN width
  uint32_t shared_expert_intermediate_size = 0;  // total width of the shared expert(s);
                                                 // 0 = num_shared_experts x moe_intermediate
  uint32_t num_dense_layers = 0;                 // layers with a dense FFN (MoE models)

  bool gated_mlp = true;             // FFN is gate + up + down (SwiGLU); false: up + down
  bool tie_word_embeddings = false;  // the LM head shares the input embedding's weights
                                     // (core/model/weight_memory.h: one vocab x hidden
                                     // matrix kept 16-bit, not two)

  WeightQuantization weight_quantization;  // method empty = weights in the run's dtype
  // The dtype the checkpoint's weights are stored in (a config.json's dtype or torch_dtype:
  // float16, bfloat16, float32); a run that names no weight dtype keeps a 16-bit one
  // (run_weight_dtype, core/model/weight_memory.h). Empty: not stated (model YAML presets do
  // not carry it).
  std::optional<DType> checkpoint_dtype;

  std::vector<LayerGroup> layer_groups;  // empty = one group from the uniform fields

  bool operator==(const ModelSpec&) const = default;
};

// Checks the invariants listed above; the message names the offending field.
Status validate_model(const ModelSpec& model);

// The model's layer groups: `layer_groups`, or the one group its uniform fields describe.
std::vector<LayerGroup> model_layer_groups(const ModelSpec& model);

// Groups that hold cache (kind != none).
std::vector<LayerGroup> cache_layer_groups(const ModelSpec& model);

// True when more than one group holds cache, or a group holds recurrent state: the capacity
// planner takes vLLM's hybrid path (core/model/kv_groups.h) and the simulator allocates per group
// (core/cache/kv_cache_coordinator.h).
bool is_hybrid(const ModelSpec& model);

// A non-hybrid model's sliding window: sliding_window_tokens, or the window of its one cache
// group when that is a sliding_window group; 0 = none.
uint32_t uniform_window_tokens(const ModelSpec& model);

// "sliding_window W=1024 x 52 layers, full x 10 layers": the groups in one line.
std::string describe_layer_groups(const ModelSpec& model);

// Bits of all weights when the unquantized ones are stored as `dense_dtype`:
// the quantized parameters at their width plus group scales, the rest at dense_dtype's.
uint64_t weight_bits(const ModelSpec& model, DType dense_dtype);

}  // namespace kvsim
