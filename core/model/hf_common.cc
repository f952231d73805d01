// Pieces every architecture reader of the importer shares (core/model/hf_architectures.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/model/hf_architectures.h"

namespace kvsim {
namespace {

uint32_t required_or(HfFields& f, std::string_view key, uint32_t fallback) {
  return fallback > 0 ? f.get(key, fallback) : f.need(key);
}

// rope_scaling's effect on the context vLLM allows (vllm/config _get_and_verify_max_len):
// linear, dynamic and yarn scaling stretch it; llama3, longrope and su do not; Gemma-3's
// max_position_embeddings already includes its scaling.
uint32_t scaled_positions(HfFields& f, uint32_t positions) {
  const nlohmann::json* rope = f.find("rope_scaling");
  if (rope == nullptr || !rope->is_object()) return positions;
  const std::string model_type = f.text_field("model_type", "");
  if (model_type.find("gemma3") != std::string::npos) return positions;
  std::string type;
  for (const char* key : {"rope_type", "type"}) {
    const auto it = rope->find(key);
    if (it != rope->end() && it->is_string()) {
      type = it->get<std::string>();
      break;
    }
  }
  if (type == "llama3" || type == "longrope" || type == "su" || type == "default" ||
      type == "mrope" || type.empty()) {
    return positions;
  }
  const auto factor = rope->find("factor");
  if (factor == rope->end() || !factor->is_number() || factor->get<double>() <= 0) {
    f.fail("rope_scaling", "needs a positive 'factor' for rope type '" + type + "'");
    return positions;
  }
  double base = positions;
  if (type == "yarn") {
    const auto original = rope->find("original_max_position_embeddings");
    if (original != rope->end() && original->is_number()) base = original->get<double>();
  }
  const double scaled = std::floor(base * factor->get<double>());
  if (!(scaled >= 1 && scaled < 4294967296.0)) {
    f.fail("rope_scaling", "stretches the context beyond 2^32 tokens");
    return positions;
  }
  return static_cast<uint32_t>(scaled);
}

AttentionKind attention_of(uint32_t heads, uint32_t kv_heads) {
  if (kv_heads == heads) return AttentionKind::kMha;
  return kv_heads == 1 ? AttentionKind::kMqa : AttentionKind::kGqa;
}

}  // namespace

HfShape read_shape(HfFields& f, const HfDefaults& d) {
  HfShape s;
  s.layers = f.need("num_hidden_layers");
  s.hidden = f.need("hidden_size");
  s.heads = f.need("num_attention_heads");
  s.kv_heads = f.get("num_key_value_heads", s.heads);
  s.head_dim = f.get("head_dim", s.heads > 0 ? s.hidden / s.heads : 0);
  s.intermediate = required_or(f, "intermediate_size", d.intermediate);
  s.vocab = required_or(f, "vocab_size", d.vocab);
  s.positions = required_or(f, "max_position_embeddings", d.positions);
  // tie_word_embeddings sits in the root of multimodal configs, in the text config otherwise.
  const auto root_tie = f.root().find("tie_word_embeddings");
  s.tie = (root_tie != f.root().end() && root_tie->is_boolean())
              ? root_tie->get<bool>()
              : f.flag("tie_word_embeddings", d.tie);
  if (s.kv_heads == 0 || s.head_dim == 0) f.fail("num_key_value_heads and head_dim must be > 0");
  return s;
}

std::optional<DType> hf_checkpoint_dtype(const nlohmann::json& root) {
  auto dtype = root.find("dtype");
  if (dtype == root.end()) dtype = root.find("torch_dtype");
  if (dtype == root.end() || !dtype->is_string()) return std::nullopt;
  if (*dtype == "float16") return DType::kFp16;
  if (*dtype == "bfloat16") return DType::kBf16;
  if (*dtype == "float32") return DType::kFp32;
  return std::nullopt;
}

void apply_shape(HfFields& f, const HfShape& s, ModelSpec* m) {
  m->num_layers = s.layers;
  m->hidden_size = s.hidden;
  m->num_attention_heads = s.heads;
  m->num_kv_heads = s.kv_heads;
  m->head_dim = s.head_dim;
  m->intermediate_size = s.intermediate;
  m->vocab_size = s.vocab;
  m->max_position_embeddings = scaled_positions(f, s.positions);
  m->attention = attention_of(s.heads, s.kv_heads);
  m->tie_word_embeddings = s.tie;
}

void set_layer_groups(HfFields& f, const std::vector<LayerKind>& kinds, uint32_t window,
                      const LayerGroup& recurrent, ModelSpec* m) {
  if (window == 0 &&
      std::find(kinds.begin(), kinds.end(), LayerKind::kSlidingWindow) != kinds.end()) {
    f.fail("sliding_window", "is needed by the sliding_attention layers");
    return;
  }
  std::vector<LayerGroup> groups;
  for (LayerKind kind : kinds) {
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const LayerGroup& g) { return g.kind == kind; });
    if (group != groups.end()) {
      ++group->num_layers;
      continue;
    }
    LayerGroup g = kind == LayerKind::kRecurrent ? recurrent : LayerGroup{};
    g.kind = kind;
    g.num_layers = 1;
    if (kind == LayerKind::kFull || kind == LayerKind::kSlidingWindow) {
      g.num_kv_heads = m->num_kv_heads;
      g.head_dim = m->head_dim;
    }
    if (kind == LayerKind::kSlidingWindow) g.window_tokens = window;
    groups.push_back(g);
  }
  m->layer_groups.clear();
  m->sliding_window_tokens = 0;
  if (groups.size() == 1 && groups.front().kind == LayerKind::kFull) return;
  if (groups.size() == 1 && groups.front().kind == LayerKind::kSlidingWindow) {
    m->sliding_window_tokens = window;
    return;
  }
  m->layer_groups = std::move(groups);
}

std::vector<LayerKind> layer_types(HfFields& f, uint32_t layers) {
  const std::vector<std::string> names = f.strings("layer_types");
  if (names.empty()) return {};
  if (names.size() != layers) {
    f.fail("layer_types", fmt::format("lists {} layers; the model has {}", names.size(), layers));
    return {};
  }
  std::vector<LayerKind> kinds;
  for (const std::string& name : names) {
    if (name == "full_attention") {
      kinds.push_back(LayerKind::kFull);
    } else if (name == "sliding_attention") {
      kinds.push_back(LayerKind::kSlidingWindow);
    } else if (name == "linear_attention") {
      kinds.push_back(LayerKind::kRecurrent);
    } else {
      f.fail("layer_types", "has '" + name +
                                "'; kvsim reads full_attention, sliding_attention and "
                                "linear_attention");
      return {};
    }
  }
  return kinds;
}

void add_embeddings(const HfShape& s, uint64_t norm_params, ParamCount* count) {
  count->embedding += uint64_t{s.vocab} * s.hidden;
  count->lm_head += s.tie ? 0 : uint64_t{s.vocab} * s.hidden;
  count->other += norm_params;
}

}  // namespace kvsim
