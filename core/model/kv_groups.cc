#include "core/model/kv_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "core/base/checked_math.h"
#include "core/base/units.h"

namespace kvsim {
namespace {

bool is_attention(LayerKind kind) {
  return kind == LayerKind::kFull || kind == LayerKind::kSlidingWindow || kind == LayerKind::kMla;
}

// vLLM's kernel block alignment: FlashAttention's 16 tokens, 64 for MLA backends.
uint32_t kernel_alignment(LayerKind attention_kind) {
  return attention_kind == LayerKind::kMla ? 64 : 16;
}

StatusOr<uint64_t> state_elements_per_device(const LayerGroup& g, uint32_t tp) {
  if (g.conv_dim % tp != 0 || g.ssm_heads % tp != 0) {
    return Status::invalid_argument(
        fmt::format("--tp {} must divide the recurrent state's conv_dim ({}) and ssm_heads ({})",
                    tp, g.conv_dim, g.ssm_heads));
  }
  return uint64_t{g.conv_state_tokens} * (g.conv_dim / tp) +
         uint64_t{g.ssm_heads / tp} * g.ssm_head_dim * g.ssm_state_size;
}

// One spec before unification: its layer group (num_layers summed over merged groups) and
// its per-device shape of one layer.
struct SpecSource {
  LayerGroup group;
  KvShape layer_shape;      // attention kinds, num_layers = 1
  uint64_t state_bits = 0;  // recurrent, per device
};

std::vector<SpecSource> merged_specs(const std::vector<LayerGroupBytes>& bytes) {
  std::vector<SpecSource> specs;
  for (const LayerGroupBytes& b : bytes) {
    if (b.group.kind == LayerKind::kNone) continue;
    LayerGroup key = b.group;
    key.num_layers = 0;
    auto same = std::find_if(specs.begin(), specs.end(), [&](const SpecSource& s) {
      LayerGroup other = s.group;
      other.num_layers = 0;
      return other == key;
    });
    if (same != specs.end()) {
      same->group.num_layers += b.group.num_layers;
      continue;
    }
    SpecSource source{b.group, b.shape_per_device, b.state_bits_per_layer_per_device};
    source.layer_shape.num_layers = 1;
    specs.push_back(source);
  }
  return specs;
}

uint64_t attention_page(const SpecSource& s, const KvStorage& storage, uint32_t block, bool nz,
                        uint32_t nz_width) {
  return nz ? kv_bytes_per_block_nz(s.layer_shape, storage, block, nz_width)
            : kv_bytes_per_block_nd(s.layer_shape, storage, block);
}

bool uniform_type(const std::vector<SpecSource>& specs) {
  for (const SpecSource& s : specs) {
    if (s.group.kind != specs.front().group.kind ||
        s.group.window_tokens != specs.front().group.window_tokens) {
      return false;
    }
  }
  return true;
}

// Step 2 for models with recurrent layers: the attention block that makes an attention page
// hold the largest state.
uint32_t block_for_states(const std::vector<SpecSource>& specs, const KvStorage& storage,
                          uint32_t block) {
  uint64_t state_bytes = 0;
  uint64_t attention_1_token = 0;
  LayerKind attention_kind = LayerKind::kFull;
  for (const SpecSource& s : specs) {
    if (s.group.kind == LayerKind::kRecurrent) {
      state_bytes = std::max(state_bytes, ceil_div(s.state_bits, kBitsPerByte));
    } else if (const uint64_t page = kv_bytes_per_block_nd(s.layer_shape, storage, 1);
               page > attention_1_token) {
      attention_1_token = page;
      attention_kind = s.group.kind;
    }
  }
  if (state_bytes == 0 || attention_1_token == 0) return block;
  const uint64_t align = kernel_alignment(attention_kind);
  uint64_t needed = align * ceil_div(state_bytes, align * attention_1_token);
  if (needed * attention_1_token < state_bytes) needed = ceil_div(state_bytes, attention_1_token);
  return static_cast<uint32_t>(std::max<uint64_t>(block, needed));
}

// Step 3: layers_per_group and the groups, each spec's layers interleaved over its groups.
void cut_groups(KvCachePlan* plan) {
  uint32_t fewest = plan->specs.front().num_layers;
  uint32_t most = fewest;
  for (const KvCacheSpec& s : plan->specs) {
    fewest = std::min(fewest, s.num_layers);
    most = std::max(most, s.num_layers);
  }
  plan->layers_per_group = (most < fewest * 1.5) ? most : fewest;
  for (size_t i = 0; i < plan->specs.size(); ++i) {
    const uint32_t layers = plan->specs[i].num_layers;
    const uint32_t num_groups = static_cast<uint32_t>(ceil_div(layers, plan->layers_per_group));
    for (uint32_t j = 0; j < num_groups; ++j) {
      plan->groups.push_back({i, ceil_div(layers - j, num_groups)});
    }
    plan->num_padding_layers += num_groups * plan->layers_per_group - layers;
  }
}

KvCachePlan uniform_plan(const std::vector<SpecSource>& sources, const KvStorage& storage,
                         uint32_t block, bool nz, uint32_t nz_width) {
  KvCachePlan plan;
  plan.uniform_type = true;
  KvCacheGroup group{0, 0};
  for (const SpecSource& s : sources) {
    KvCacheSpec spec{s.group.kind, s.group.num_layers, s.group.window_tokens, 0, 0, 0};
    if (s.group.kind == LayerKind::kRecurrent) {
      spec.real_page_bytes = ceil_div(s.state_bits, kBitsPerByte);
    } else {
      spec.block_size = block;
      spec.real_page_bytes = attention_page(s, storage, block, nz, nz_width);
    }
    spec.page_bytes = spec.real_page_bytes;
    group.num_layers += spec.num_layers;
    plan.specs.push_back(spec);
  }
  plan.layers_per_group = group.num_layers;
  plan.groups.push_back(group);
  return plan;
}

}  // namespace

StatusOr<std::vector<LayerGroupBytes>> layer_group_bytes(const ModelSpec& model,
                                                         const KvStorage& storage, uint32_t tp) {
  std::vector<LayerGroupBytes> out;
  for (const LayerGroup& group : model_layer_groups(model)) {
    LayerGroupBytes b;
    b.group = group;
    if (is_attention(group.kind)) {
      b.shape_model = kv_shape(group, 1);
      b.shape_per_device = kv_shape(group, tp);
      b.bits_per_token = kv_bits_per_token(b.shape_model, storage);
      b.bits_per_token_per_device = kv_bits_per_token(b.shape_per_device, storage);
    } else if (group.kind == LayerKind::kRecurrent) {
      KVSIM_ASSIGN_OR_RETURN(const uint64_t per_device, state_elements_per_device(group, tp));
      KVSIM_ASSIGN_OR_RETURN(const uint64_t whole, state_elements_per_device(group, 1));
      b.state_bits_per_layer = whole * dtype_bits(group.state_dtype);
      b.state_bits_per_layer_per_device = per_device * dtype_bits(group.state_dtype);
    }
    out.push_back(b);
  }
  return out;
}

uint64_t KvCachePlan::bytes_per_block() const {
  if (!uniform_type) return page_bytes * layers_per_group;
  uint64_t bytes = 0;
  for (const KvCacheSpec& s : specs) bytes += s.page_bytes * s.num_layers;
  return bytes;
}

uint32_t KvCachePlan::min_block_size() const {
  uint32_t block = 0;
  for (const KvCacheSpec& s : specs) {
    if (s.block_size > 0 && (block == 0 || s.block_size < block)) block = s.block_size;
  }
  return block;
}

StatusOr<KvCachePlan> plan_kv_cache(const ModelSpec& model, const KvStorage& storage, uint32_t tp,
                                    uint32_t block_size, bool nz, uint32_t nz_width) {
  KVSIM_ASSIGN_OR_RETURN(std::vector<LayerGroupBytes> bytes, layer_group_bytes(model, storage, tp));
  const std::vector<SpecSource> sources = merged_specs(bytes);
  if (sources.empty()) return Status::invalid_argument("model '" + model.name + "' caches nothing");
  if (uniform_type(sources)) return uniform_plan(sources, storage, block_size, nz, nz_width);
  const uint32_t block = block_for_states(sources, storage, block_size);
  KvCachePlan plan;
  uint64_t largest = 0;
  for (const SpecSource& s : sources) {
    if (s.group.kind != LayerKind::kRecurrent) {
      largest = std::max(largest, attention_page(s, storage, block, nz, nz_width));
    }
  }
  for (const SpecSource& s : sources) {
    KvCacheSpec spec{s.group.kind, s.group.num_layers, s.group.window_tokens, 0, 0, largest};
    if (s.group.kind == LayerKind::kRecurrent) {
      spec.real_page_bytes = ceil_div(s.state_bits, kBitsPerByte);
    } else {
      const uint64_t page = attention_page(s, storage, block, nz, nz_width);
      if (largest % page != 0) {
        return Status::invalid_argument(
            fmt::format("model '{}': attention pages of {} and {} bytes do not divide (vLLM "
                        "cannot unify them either)",
                        model.name, page, largest));
      }
      spec.block_size = static_cast<uint32_t>(block * (largest / page));
      spec.real_page_bytes = largest;
    }
    if (spec.real_page_bytes > largest) {
      return Status::invalid_argument("model '" + model.name +
                                      "': a recurrent state is larger than the attention page");
    }
    plan.specs.push_back(spec);
  }
  plan.page_bytes = largest;
  cut_groups(&plan);
  return plan;
}

uint64_t group_blocks_per_request(LayerKind kind, uint32_t window_tokens, uint32_t block_size,
                                  uint64_t seq_len, uint64_t max_num_batched_tokens) {
  switch (kind) {
    case LayerKind::kFull:
    case LayerKind::kMla:
      return ceil_div(seq_len, uint64_t{block_size});
    case LayerKind::kSlidingWindow:
      return ceil_div(std::min<uint64_t>(window_tokens - 1 + max_num_batched_tokens, seq_len),
                      uint64_t{block_size}) +
             1;
    case LayerKind::kRecurrent:
      return 1;
    case LayerKind::kNone:
      return 0;
  }
  return 0;
}

uint64_t blocks_per_request(const KvCachePlan& plan, uint64_t seq_len,
                            uint64_t max_num_batched_tokens) {
  const auto spec_blocks = [&](const KvCacheSpec& s) {
    return group_blocks_per_request(s.kind, s.window_tokens, s.block_size, seq_len,
                                    max_num_batched_tokens);
  };
  if (plan.uniform_type) return spec_blocks(plan.specs.front());
  uint64_t blocks = 0;
  for (const KvCacheGroup& group : plan.groups) blocks += spec_blocks(plan.specs[group.spec]);
  return blocks;
}

uint64_t reported_tokens(const KvCachePlan& plan, uint64_t num_blocks) {
  return num_blocks / plan.groups.size() * plan.min_block_size();
}

}  // namespace kvsim
