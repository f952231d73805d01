// ParallelLayout: how one deployment places a model over its devices — tensor parallelism,
// data-parallel attention, expert parallelism and pipeline stages — and what one rank (device)
// then holds: its weights and its share of the KV cache. kvsim's four numbers read like
// SGLang's flags; vLLM's map onto them:
//
//   kvsim                 SGLang                          vLLM (--enable-expert-parallel)
//   tp  devices / stage   --tp (the whole group)          --tensor-parallel-size x
//                                                         --data-parallel-size
//   dp  attention DP      --dp-size --enable-dp-attention --data-parallel-size
//   ep  expert ranks      --ep-size                       tp x dp (all of them), or 1 without
//   pp  stages            --pp-size                       --pipeline-parallel-size
//   attention TP = tp / dp
//
// The rule, as the engines' code has it:
//   * Attention TP: SGLang's compute_dp_attention_world_info (python/sglang/srt/layers/
//     dp_attention.py): attn_tp_size = tp_size // dp_size inside the tp group, each attention
//     DP rank with its own requests and KV cache. vLLM: each of the dp engine cores runs
//     attention with its own --tensor-parallel-size.
//   * Routed experts: vLLM's FusedMoEParallelConfig.make (vllm/model_executor/layers/
//     fused_moe/config.py) flattens tp over dp ("There are actually dp_size * tp_size
//     devices"); with expert parallelism ep_size = that flattened size and each expert is whole
//     on its rank, without it every expert is split over all of them. SGLang splits the experts
//     over --ep-size ranks and each expert over moe_tp_size = tp_size // moe_ep_size //
//     moe_dp_size (python/sglang/srt/distributed/parallel_state.py, initialize_model_parallel;
//     it requires tp_size % ep_size == 0). Either way one rank holds routed experts / ep, each
//     split tp / ep ways: routed / tp of the routed weights. (SGLang's --moe-dp-size, which
//     replicates the experts over MoE-DP groups, is not modelled: kvsim takes its default 1.)
//   * Everything else (attention, dense FFN, shared experts, embedding, untied lm_head) is split
//     by the attention TP and replicated over the dp ranks (vLLM: every DP engine core loads
//     its own copy, split by --tensor-parallel-size). The MoE router is replicated on every
//     rank (ReplicatedLinear), and past tp > kv_heads each rank holds one whole KV head's K and
//     V projection (core/model/weight_memory.h).
//     SGLang differs in three pieces kvsim does not model: with DP attention its
//     VocabParallelEmbedding is built with enable_tp=not is_dp_attention_enabled() (whole on
//     every rank), and the dense FFN layers and lm_head split over the whole tp group unless
//     --moe-dense-tp-size / --enable-dp-lm-head say otherwise (models/deepseek_v2.py).
//   * Pipeline stages: pp divides the layers; stage s holds layers [s L/pp, (s+1) L/pp), the
//     first stage the embedding, the last the lm_head (a tied lm_head is a copy of the embedding
//     there, vLLM's PPMissingLayer elsewhere). A rank's weights are its heaviest stage's: the
//     routed experts and routers of the stage's MoE layers exactly, the rest of the layers as
//     an even share per layer (a dense first layer is charged like a MoE layer's non-expert
//     part).
//
//   weights per rank = routed x (MoE layers of the stage / MoE layers) / tp
//                    + router x (MoE layers of the stage / MoE layers)
//                    + rest x (stage layers / layers) / attention TP
//                    + K,V projections x (stage layers / layers) / min(attention TP, kv_heads)
//                    + (embedding on stage 0 + lm_head on the last) / attention TP
//   KV per rank      = the KV of layers / pp layers with kv_heads / attention TP heads (at
//                      least one); an MLA latent is not split: every attention-TP rank holds
//                      the whole latent of its layers.
// A DP rank caches only its own requests, so the tokens of one rank's pool are those of its DP
// rank; the layout caches dp times that.
//
// Invariants validate_parallel_layout() checks: every number >= 1, dp | tp, ep | tp,
// ep | experts (and ep == 1 for a dense model), pp | layers, pp == 1 for hybrid models. A
// layout with dp = ep = pp = 1 is today's TP group; rank_weight_bytes() is then exactly
// core/model/weight_memory.h's loaded_weight_bytes().
#pragma once

#include <cstdint>
#include <string>

#include "core/base/status.h"
#include "core/model/dtype.h"
#include "core/model/kv_shape.h"
#include "core/model/model_spec.h"

namespace kvsim {

struct ParallelLayout {
  uint32_t tp = 1;  // devices of one pipeline stage (the TP group); default 1
  uint32_t dp = 1;  // attention data-parallel ranks inside the group; divides tp; default 1
  uint32_t ep = 1;  // ranks the routed experts are divided over; divides tp; default 1
  uint32_t pp = 1;  // pipeline stages; divides the layers; default 1

  uint32_t attention_tp() const { return tp / dp; }
  uint32_t num_devices() const { return tp * pp; }
  // The devices one DP rank's requests and KV cache live on: its attention TP over the stages.
  uint32_t dp_rank_devices() const { return attention_tp() * pp; }
  // Only tensor parallelism: every rank as kvsim modelled it before layouts.
  bool tp_only() const { return dp == 1 && ep == 1 && pp == 1; }
};

// Checks the invariants above against the model; a failure names the field (--dp, parallel.dp)
// and the value.
Status validate_parallel_layout(const ModelSpec& model, const ParallelLayout& layout);

// The weights of one rank of the heaviest stage, by part (bytes, rounded up as a whole).
struct RankWeights {
  uint64_t bytes = 0;               // everything one rank holds
  uint32_t stage = 0;               // the heaviest stage (0 without pipeline stages)
  uint32_t moe_layers = 0;          // MoE layers of that stage
  uint32_t stage_layers = 0;        // layers of that stage
  uint64_t routed_bytes = 0;        // its routed experts
  uint64_t replicated_bytes = 0;    // its MoE routers, whole on every rank
  uint64_t attention_tp_bytes = 0;  // the rest of its layers, embedding and lm_head, split by
                                    // the attention TP (K,V projections: at most kv_heads ways)
};

// Valid layouts only (validate_parallel_layout); the model needs num_params > 0.
RankWeights rank_weights(const ModelSpec& model, DType weight_dtype, const ParallelLayout& layout);

// The KV one rank caches per token (uniform models; pp == 1 for hybrid ones).
KvShape rank_kv_shape(const ModelSpec& model, const ParallelLayout& layout);

// The weights formula with the rank's numbers, for the capacity report and the engine's
// weights term: "routed experts x 58/58 MoE layers / TP 8 + routers + rest / attention TP 1 ...".
std::string rank_weights_formula(const RankWeights& weights, const ParallelLayout& layout);

// "TP 8 = 8 attention DP x attention TP 1, EP 8, PP 1": the layout in one line.
std::string describe_parallel_layout(const ParallelLayout& layout);

}  // namespace kvsim
