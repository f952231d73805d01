#include "core/report/group_report.h"

#include <sstream>

#include "core/base/text_format.h"

namespace kvsim {
namespace {

std::string bits_as_bytes(uint64_t bits) {
  if (bits % 8 == 0) return format_count(bits / 8);
  return format_number(static_cast<double>(bits) / 8.0);
}

std::string dtype_bytes(DType dtype) { return format_number(dtype_bits(dtype) / 8.0); }

// "2 (K and V) x 52 x 16 x 128 x 2" for a shape.
std::string attention_formula(const KvShape& s, const KvStorage& kv) {
  std::ostringstream out;
  if (s.num_tensors == 1) {
    out << s.num_layers << " x " << s.vector_elements << " (latent) x " << dtype_bytes(kv.dtype);
  } else if (s.v_vector_elements == 0) {
    out << "2 (K and V) x " << s.num_layers << " x " << s.heads << " x " << s.vector_elements
        << " x " << dtype_bytes(kv.dtype);
  } else {
    out << s.num_layers << " x " << s.heads << " x (" << s.vector_elements << " + "
        << s.v_vector_elements << ") x " << dtype_bytes(kv.dtype);
  }
  if (kv.quant_group > 0) out << " + scales";
  return out.str();
}

void group_line(const LayerGroupBytes& b, const KvStorage& kv, uint32_t tp,
                std::ostringstream& out) {
  const LayerGroup& g = b.group;
  out << "  " << layer_kind_name(g.kind);
  if (g.kind == LayerKind::kSlidingWindow) out << " W=" << format_count(g.window_tokens);
  out << ", " << g.num_layers << " layers: ";
  switch (g.kind) {
    case LayerKind::kNone:
      out << "no cache\n";
      return;
    case LayerKind::kRecurrent:
      out << g.num_layers << " x (" << g.conv_state_tokens << " x " << format_count(g.conv_dim)
          << " + " << g.ssm_heads << " x " << g.ssm_head_dim << " x " << g.ssm_state_size << ") x "
          << dtype_bytes(g.state_dtype) << " = "
          << bits_as_bytes(b.state_bits_per_layer * g.num_layers) << " B per sequence";
      if (tp > 1) {
        out << "; per device " << bits_as_bytes(b.state_bits_per_layer_per_device * g.num_layers)
            << " B";
      }
      out << "\n";
      return;
    default:
      break;
  }
  out << attention_formula(b.shape_model, kv) << " = " << bits_as_bytes(b.bits_per_token)
      << " B per token";
  if (g.kind == LayerKind::kSlidingWindow) {
    out << " (the last " << format_count(g.window_tokens) << " tokens)";
  }
  if (tp > 1) {
    out << "; per device " << attention_formula(b.shape_per_device, kv) << " = "
        << bits_as_bytes(b.bits_per_token_per_device) << " B";
  }
  out << "\n";
}

}  // namespace

std::string layer_group_lines(const std::vector<LayerGroupBytes>& groups, const KvStorage& kv,
                              uint32_t tp) {
  std::ostringstream out;
  for (const LayerGroupBytes& b : groups) group_line(b, kv, tp, out);
  return out.str();
}

std::string kv_cache_plan_lines(const KvCachePlan& plan) {
  std::ostringstream out;
  if (plan.uniform_type) {
    out << "  one group of all " << plan.layers_per_group
        << " layers (every layer caches alike): a block is the sum of their pages = "
        << format_count(plan.bytes_per_block()) << " B\n";
    return out.str();
  }
  out << "  one page size for every layer: " << format_count(plan.page_bytes) << " B";
  for (const KvCacheSpec& s : plan.specs) {
    out << "\n    " << layer_kind_name(s.kind) << ": ";
    if (s.kind == LayerKind::kRecurrent) {
      out << "a state of " << format_count(s.real_page_bytes) << " B padded to the page";
    } else {
      out << "a block of " << format_count(s.block_size) << " tokens";
    }
  }
  out << "\n  " << plan.groups.size() << " groups of " << plan.layers_per_group << " layer slots ("
      << plan.num_padding_layers << " padding):";
  for (size_t i = 0; i < plan.specs.size(); ++i) {
    size_t count = 0;
    for (const KvCacheGroup& g : plan.groups) count += g.spec == i ? 1 : 0;
    out << (i == 0 ? " " : ", ") << layer_kind_name(plan.specs[i].kind) << " x " << count;
  }
  out << "\n  bytes per block id = page x layer slots = " << format_count(plan.page_bytes) << " x "
      << plan.layers_per_group << " = " << format_count(plan.bytes_per_block())
      << " B (one pool shared by every group)\n";
  return out.str();
}

std::string blocks_per_request_formula(const KvCachePlan& plan, uint64_t seq_len,
                                       uint64_t max_num_batched_tokens) {
  std::ostringstream out;
  const size_t num_specs = plan.uniform_type ? 1 : plan.specs.size();
  for (size_t i = 0; i < num_specs; ++i) {
    const KvCacheSpec& s = plan.specs[i];
    size_t count = 0;
    for (const KvCacheGroup& g : plan.groups) count += g.spec == i ? 1 : 0;
    if (i > 0) out << " + ";
    out << count << " x ";
    switch (s.kind) {
      case LayerKind::kSlidingWindow:
        out << "(cdiv(min(" << s.window_tokens - 1 << " + " << format_count(max_num_batched_tokens)
            << ", " << format_count(seq_len) << "), " << s.block_size << ") + 1)";
        break;
      case LayerKind::kRecurrent:
        out << "1";
        break;
      default:
        out << "cdiv(" << format_count(seq_len) << ", " << s.block_size << ")";
        break;
    }
  }
  return out.str();
}

}  // namespace kvsim
