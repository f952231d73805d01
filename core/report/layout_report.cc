#include "core/report/layout_report.h"

#include <fmt/format.h>

#include <cstdarg>
#include <cstdio>

#include "core/base/check.h"
#include "core/base/text_format.h"
#include "core/report/group_report.h"

namespace kvsim {
namespace {

// printf into a std::string.
__attribute__((format(printf, 2, 3))) void appendf(std::string* out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  const int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (length > 0) {
    const size_t old_size = out->size();
    out->resize(old_size + static_cast<size_t>(length) + 1);
    std::vsnprintf(out->data() + old_size, static_cast<size_t>(length) + 1, format, args);
    out->resize(old_size + static_cast<size_t>(length));
  }
  va_end(args);
}

std::string shape_text(const std::array<uint64_t, 3>& shape) {
  return fmt::format("[{}, {}, {}]", shape[0], shape[1], shape[2]);
}

unsigned long long ull(uint64_t value) { return static_cast<unsigned long long>(value); }

void append_pick(const BlockLayout& layout, const LayoutPick& pick, std::string* out) {
  KVSIM_CHECK(pick.head < layout.kv_heads && pick.dim < layout.head_dim,
              "layout_report: picked element outside the block");
  const uint32_t slot = static_cast<uint32_t>(pick.token % layout.block_size);
  const uint64_t column = uint64_t{pick.head} * layout.head_dim + pick.dim;
  appendf(out, "\nElement (token %llu, head %u, dim %u): block %llu, slot %u\n", ull(pick.token),
          pick.head, pick.dim, ull(pick.token / layout.block_size), slot);
  appendf(out,
          "  ND offset = (slot*kv_heads + head)*head_dim + dim = (%u*%u + %u)*%u + %u = %llu\n",
          slot, layout.kv_heads, pick.head, layout.head_dim, pick.dim,
          ull(layout.nd_offset(slot, pick.head, pick.dim)));
  appendf(out,
          "  NZ offset = ((c/n0)*padded_block + slot)*n0 + c%%n0 with c = %llu: "
          "((%llu)*%llu + %u)*%u + %llu = %llu\n",
          ull(column), ull(column / layout.nz_width), ull(layout.nz_padded_block()), slot,
          layout.nz_width, ull(column % layout.nz_width),
          ull(layout.nz_offset(slot, pick.head, pick.dim)));
}

}  // namespace

std::string layout_report(const ModelSpec& model, DType dtype, const BlockLayout& layout,
                          const std::optional<LayoutPick>& pick) {
  const double bytes = dtype_bits(dtype) / 8.0;
  std::string out;
  appendf(&out, "One layer's K (or V) block of %s, %s, %u tokens\n", model.name.c_str(),
          std::string(dtype_name(dtype)).c_str(), layout.block_size);
  if (is_hybrid(model)) {
    appendf(&out, "(an attention layer with the model's %u KV heads; groups: %s)\n",
            model.num_kv_heads, describe_layer_groups(model).c_str());
  }
  out += "\n";
  appendf(&out, "ND [block_size, kv_heads, head_dim] = %s: %s elements, %s B\n",
          shape_text(layout.nd_shape()).c_str(), format_count(layout.nd_elements()).c_str(),
          format_number(layout.nd_elements() * bytes).c_str());
  appendf(&out,
          "NZ [ceil(kv_heads*head_dim / n0), ceil(block_size/16)*16, n0] = %s (n0 = %u): "
          "%s elements, %s B\n",
          shape_text(layout.nz_shape()).c_str(), layout.nz_width,
          format_count(layout.nz_elements()).c_str(),
          format_number(layout.nz_elements() * bytes).c_str());
  appendf(&out, "NZ padding: %s%% of the NZ block\n",
          format_fixed(100.0 * layout.nz_padding_fraction(), 2).c_str());
  if (pick) append_pick(layout, *pick, &out);
  auto groups = layer_group_bytes(model, KvStorage{dtype, 0}, 1);
  if (groups.is_ok()) {
    out += "\nKV bytes by layer group (whole model, " + std::string(dtype_name(dtype)) + ")\n";
    out += layer_group_lines(*groups, KvStorage{dtype, 0}, 1);
  }
  return out;
}

}  // namespace kvsim
