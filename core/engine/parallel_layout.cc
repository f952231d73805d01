#include "core/engine/parallel_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/base/text_format.h"
#include "core/model/weight_memory.h"

namespace kvsim {
namespace {

Status field_error(std::string_view field, uint32_t value, const std::string& what) {
  return Status::invalid_argument(
      fmt::format("parallel.{} (--{}) {} {}", field, field, value, what));
}

uint64_t bits_to_bytes(long double bits) { return static_cast<uint64_t>(std::ceil(bits / 8.0L)); }

// The MoE layers among [begin, end): the first num_dense_layers layers are dense.
uint32_t moe_layers_in(const ModelSpec& model, uint32_t begin, uint32_t end) {
  if (model.num_experts == 0) return 0;
  const uint32_t first_moe = std::min(model.num_dense_layers, model.num_layers);
  return end > std::max(begin, first_moe) ? end - std::max(begin, first_moe) : 0;
}

// One rank of stage `stage`, by the formula in the header.
RankWeights stage_weights(const ModelSpec& model, const WeightBitsSplit& bits,
                          const ParallelLayout& layout, uint32_t stage) {
  RankWeights out;
  out.stage = stage;
  out.stage_layers = model.num_layers / layout.pp;
  const uint32_t begin = stage * out.stage_layers;
  out.moe_layers = moe_layers_in(model, begin, begin + out.stage_layers);
  const uint32_t all_moe = moe_layers_in(model, 0, model.num_layers);
  const long double moe_share =
      all_moe > 0 ? static_cast<long double>(out.moe_layers) / all_moe : 0;
  const long double layer_share = static_cast<long double>(out.stage_layers) / model.num_layers;
  const uint32_t attn_tp = layout.attention_tp();
  const uint32_t kv_split = std::min(attn_tp, std::max<uint32_t>(model.num_kv_heads, 1));
  long double vocab = 0;
  if (layout.pp == 1) {
    vocab = bits.embedding + bits.lm_head;
  } else {
    if (stage == 0) vocab += bits.embedding;
    if (stage + 1 == layout.pp) vocab += bits.lm_head > 0 ? bits.lm_head : bits.embedding;
  }
  const long double routed = bits.routed_experts * moe_share / layout.tp;
  const long double replicated = bits.router * moe_share;
  const long double split =
      (bits.rest * layer_share + vocab) / attn_tp + bits.kv_projection * layer_share / kv_split;
  out.routed_bytes = bits_to_bytes(routed);
  out.replicated_bytes = bits_to_bytes(replicated);
  out.attention_tp_bytes = bits_to_bytes(split);
  out.bytes = bits_to_bytes(routed + replicated + split);
  return out;
}

}  // namespace

Status validate_parallel_layout(const ModelSpec& model, const ParallelLayout& layout) {
  if (layout.tp == 0) return field_error("tp", 0, "must be >= 1");
  if (layout.dp == 0) return field_error("dp", 0, "must be >= 1");
  if (layout.ep == 0) return field_error("ep", 0, "must be >= 1");
  if (layout.pp == 0) return field_error("pp", 0, "must be >= 1");
  if (layout.tp % layout.dp != 0) {
    return field_error("dp", layout.dp,
                       fmt::format("must divide the {} devices of the TP group (tp): attention "
                                   "TP = tp / dp (SGLang's attn_tp_size = tp_size // dp_size)",
                                   layout.tp));
  }
  if (layout.ep > 1 && model.num_experts == 0) {
    return field_error("ep", layout.ep,
                       fmt::format("needs a mixture-of-experts model; '{}' is dense", model.name));
  }
  if (layout.tp % layout.ep != 0) {
    return field_error("ep", layout.ep,
                       fmt::format("must divide the {} devices of the TP group (tp): the expert "
                                   "ranks are inside the group",
                                   layout.tp));
  }
  if (model.num_experts > 0 && model.num_experts % layout.ep != 0) {
    return field_error(
        "ep", layout.ep,
        fmt::format("must divide the {} routed experts of '{}'", model.num_experts, model.name));
  }
  if (model.num_layers % layout.pp != 0) {
    return field_error(
        "pp", layout.pp,
        fmt::format("must divide the {} layers of '{}'", model.num_layers, model.name));
  }
  if (layout.pp > 1 && is_hybrid(model)) {
    return field_error("pp", layout.pp,
                       fmt::format("is not modelled for the hybrid model '{}' (its layer groups "
                                   "would split unevenly over the stages); use pp 1",
                                   model.name));
  }
  return Status::ok();
}

RankWeights rank_weights(const ModelSpec& model, DType weight_dtype, const ParallelLayout& layout) {
  const WeightBitsSplit bits = split_weight_bits(model, weight_dtype);
  RankWeights heaviest;
  for (uint32_t stage = 0; stage < layout.pp; ++stage) {
    const RankWeights w = stage_weights(model, bits, layout, stage);
    if (stage == 0 || w.bytes > heaviest.bytes) heaviest = w;
  }
  // Today's TP group: the one formula kvsim has always used, to the byte.
  if (layout.tp_only()) heaviest.bytes = loaded_weight_bytes(model, weight_dtype, layout.tp);
  return heaviest;
}

KvShape rank_kv_shape(const ModelSpec& model, const ParallelLayout& layout) {
  KvShape shape = kv_shape(model, layout.attention_tp());
  shape.num_layers /= layout.pp;
  return shape;
}

std::string rank_weights_formula(const RankWeights& w, const ParallelLayout& layout) {
  std::string stage;
  if (layout.pp > 1) {
    stage = fmt::format("stage {} of {} ({} layers, {} MoE; the heaviest): ", w.stage, layout.pp,
                        w.stage_layers, w.moe_layers);
  }
  return fmt::format(
      "{}routed experts / TP {} + routers (every rank) + (rest of the layers, embedding, lm_head) "
      "/ attention TP {} = {} + {} + {} B",
      stage, layout.tp, layout.attention_tp(), format_count(w.routed_bytes),
      format_count(w.replicated_bytes), format_count(w.attention_tp_bytes));
}

std::string describe_parallel_layout(const ParallelLayout& layout) {
  return fmt::format("TP {} = {} attention DP x attention TP {}, EP {}, PP {} ({} devices)",
                     layout.tp, layout.dp, layout.attention_tp(), layout.ep, layout.pp,
                     layout.num_devices());
}

}  // namespace kvsim
