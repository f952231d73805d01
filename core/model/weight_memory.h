// The bytes of model weights one device holds after loading: what an engine's "Model loading
// took X GiB" reports and what its KV budget subtracts first.
//
//   a checkpoint with weight_quantization (core/model/model_spec.h, from config.json):
//       weight_bits(model, weight dtype) / 8 / tp       its quantized parameters exactly
//   otherwise, 16-bit or wider weights:  params x bytes(weight dtype) / tp
//   narrower (fp8, int8, int4 checkpoints, vLLM's online fp8):
//       (params - E) x bits(weight dtype) / 8 / tp          the quantized linear layers
//     + E x 2 B / tp                                         embedding (and untied lm_head)
//     + int4 only: (params - E) x 20 / 128 bits / tp         AWQ/GPTQ group scales
//   with E = vocab x hidden x (tie_word_embeddings ? 1 : 2).
// Quantization methods keep the token embedding and the output projection in the model's
// 16-bit dtype (vLLM's VocabParallelEmbedding / ParallelLMHead take no quant method by default);
// an AWQ/GPTQ int4 group of 128 weights carries an fp16 scale and a 4-bit zero point. Checked
// against the logged weights of Qwen2.5-7B-Instruct-AWQ (5.29 GiB logged, 5.19 modelled) and
// granite-4.0-micro with online fp8 (3.42 logged, 3.41 modelled): docs/engine_memory.md.
// Norms, biases and per-tensor fp8 scales are below 0.1% and counted at the weight dtype.
//
// Over `tp` devices everything is split evenly except what vLLM replicates on every rank:
//   the MoE router (ReplicatedLinear, hidden x experts per MoE layer, unquantized: 16-bit,
//     or the weight dtype where that is wider), and
//   the K and V projections when tp > kv_heads (QKVParallelLinear gives each rank one whole
//     KV head: layers x 2 x hidden x head_dim per rank, at the linear layers' width).
// Qwen3-235B-A22B fp8 at TP8 (4 KV heads, 128 experts, 94 layers): 0.09 GiB of router and
// 0.05 GiB more KV projection per rank than an even split; the logged 27.72 GiB per rank
// (docs/engine_memory.md) is 27.65 with them, 27.51 without.
#pragma once

#include <cstdint>
#include <optional>

#include "core/model/dtype.h"
#include "core/model/model_spec.h"

namespace kvsim {

// The dtype a run keeps the weights in: `stated` (a scenario's weight_dtype, --weight-dtype),
// else the checkpoint's own when it is fp16 or bf16, else fp16. vLLM's dtype "auto" likewise
// keeps a 16-bit checkpoint's dtype; a float32 one it downcasts to the platform's preferred
// 16-bit type (bf16 from compute capability 8.0, fp16 before: _resolve_auto_dtype in
// vllm/config/model.py), which kvsim, choosing without the device, leaves at fp16. A
// scenario's run (prepare_engine_setup), kvsim capacity and cost, and kvsim.capacity() in
// Python read the weight dtype through this one function.
DType run_weight_dtype(const ModelSpec& model, std::optional<DType> stated);

// Weight bytes on one of `tp` devices (tp >= 1), rounded up; the model needs num_params > 0.
uint64_t loaded_weight_bytes(const ModelSpec& model, DType weight_dtype, uint32_t tp);

// The vocab x hidden parameters a quantized checkpoint keeps in 16-bit (E above).
uint64_t embedding_params(const ModelSpec& model);

// The MoE router's parameters (0 for a dense model): replicated, never quantized.
uint64_t router_params(const ModelSpec& model);

// The K and V projection parameters one rank holds when tp > kv_heads (one whole KV head per
// rank); 0 when the heads split evenly, and for MLA and hybrid models.
uint64_t replicated_kv_params(const ModelSpec& model, uint32_t tp);

// The routed experts' matrices (gate, up, down of every routed expert of every MoE layer):
// (layers - dense layers) x experts x 3 x hidden x moe_intermediate; 0 for a dense model.
uint64_t routed_expert_params(const ModelSpec& model);

// All weight bits of the model (what loaded_weight_bytes splits over `tp`), by how a parallel
// layout places them (core/engine/parallel_layout.h). The parts sum to the whole; each is
// counted at the width loaded_weight_bytes gives it (routed experts at the linear layers' width
// with their quantization groups, embedding / lm_head / router unquantized).
struct WeightBitsSplit {
  long double routed_experts = 0;  // routed expert matrices
  long double router = 0;          // MoE routers, replicated on every rank
  long double embedding = 0;       // the input embedding, vocab x hidden
  long double lm_head = 0;         // the untied output projection; 0 when tied
  long double kv_projection = 0;   // every K and V projection (one KV head per rank past tp >
                                   // kv_heads); 0 for MLA and hybrid models, which keep them
                                   // in `rest`
  long double rest = 0;            // the rest of the layers: attention, dense FFN, shared
                                   // experts, norms
};
WeightBitsSplit split_weight_bits(const ModelSpec& model, DType weight_dtype);

}  // namespace kvsim
