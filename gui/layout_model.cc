#include "gui/layout_model.h"

#include <fmt/format.h>

#include "core/base/enum_names.h"
#include "core/engine/capacity.h"
#include "core/model/load_spec.h"
#include "core/report/layout_json.h"
#include "core/report/layout_report.h"

namespace kvsim::gui {
namespace {

CellKind head_shade(uint64_t column, uint32_t head_dim) {
  return (column / head_dim) % 2 == 0 ? CellKind::kEvenHead : CellKind::kOddHead;
}

uint32_t nz_tile_stride(const BlockLayout& layout) { return layout.nz_width + 1; }

Status check_pick(const LayoutViewInput& input, const BlockLayout& layout) {
  if (input.head >= layout.kv_heads || input.dim >= layout.head_dim) {
    return Status::invalid_argument("the picked element needs head < " +
                                    std::to_string(layout.kv_heads) + " and dim < " +
                                    std::to_string(layout.head_dim));
  }
  const uint64_t nz_columns = layout.nz_fractal_columns() * nz_tile_stride(layout);
  if (layout.nd_elements() > kMaxGridCells ||
      nz_columns * layout.nz_padded_block() > kMaxGridCells) {
    return Status::invalid_argument("a block of " + std::to_string(layout.block_size) +
                                    " tokens is too large to draw; choose a smaller block size");
  }
  return Status::ok();
}

}  // namespace

GridCell nd_cell(const BlockLayout& layout, uint32_t slot, uint32_t head, uint32_t dim) {
  return {static_cast<uint32_t>(uint64_t{head} * layout.head_dim + dim), slot};
}

GridCell nz_cell(const BlockLayout& layout, uint32_t slot, uint32_t head, uint32_t dim) {
  const uint64_t column = uint64_t{head} * layout.head_dim + dim;
  const uint64_t x = column / layout.nz_width * nz_tile_stride(layout) + column % layout.nz_width;
  return {static_cast<uint32_t>(x), slot};
}

std::optional<uint64_t> nd_cell_offset(const BlockLayout& layout, GridCell cell) {
  if (cell.row >= layout.block_size || cell.column >= layout.columns()) return std::nullopt;
  return uint64_t{cell.row} * layout.columns() + cell.column;
}

std::optional<uint64_t> nz_cell_offset(const BlockLayout& layout, GridCell cell) {
  const uint32_t stride = nz_tile_stride(layout);
  const uint64_t tile = cell.column / stride;
  const uint32_t j = cell.column % stride;
  if (j == layout.nz_width || tile >= layout.nz_fractal_columns() ||
      cell.row >= layout.nz_padded_block()) {
    return std::nullopt;
  }
  return (tile * layout.nz_padded_block() + cell.row) * layout.nz_width + j;
}

std::string_view cell_kind_name(CellKind kind) {
  static constexpr EnumNames<CellKind, 5> kNames{{{
      {CellKind::kEvenHead, "head_even"},
      {CellKind::kOddHead, "head_odd"},
      {CellKind::kPadding, "padding"},
      {CellKind::kGap, "gap"},
      {CellKind::kPicked, "picked"},
  }}};
  return kNames.name(kind);
}

CellGrid nd_grid(const BlockLayout& layout, uint32_t slot, uint32_t head, uint32_t dim) {
  CellGrid grid;
  grid.width = static_cast<uint32_t>(layout.columns());
  grid.height = layout.block_size;
  grid.cells.resize(uint64_t{grid.width} * grid.height);
  for (uint32_t row = 0; row < grid.height; ++row) {
    for (uint32_t column = 0; column < grid.width; ++column) {
      grid.cells[uint64_t{row} * grid.width + column] = head_shade(column, layout.head_dim);
    }
  }
  const GridCell picked = nd_cell(layout, slot, head, dim);
  grid.cells[uint64_t{picked.row} * grid.width + picked.column] = CellKind::kPicked;
  return grid;
}

CellGrid nz_grid(const BlockLayout& layout, uint32_t slot, uint32_t head, uint32_t dim) {
  const uint32_t stride = nz_tile_stride(layout);
  const uint64_t tiles = layout.nz_fractal_columns();
  CellGrid grid;
  grid.width = static_cast<uint32_t>(tiles * stride - 1);
  grid.height = static_cast<uint32_t>(layout.nz_padded_block());
  grid.cells.assign(uint64_t{grid.width} * grid.height, CellKind::kGap);
  for (uint32_t row = 0; row < grid.height; ++row) {
    for (uint64_t tile = 0; tile < tiles; ++tile) {
      for (uint32_t j = 0; j < layout.nz_width; ++j) {
        const uint64_t column = tile * layout.nz_width + j;  // column of the ND matrix
        const bool padding = row >= layout.block_size || column >= layout.columns();
        grid.cells[uint64_t{row} * grid.width + tile * stride + j] =
            padding ? CellKind::kPadding : head_shade(column, layout.head_dim);
      }
    }
  }
  const GridCell picked = nz_cell(layout, slot, head, dim);
  grid.cells[uint64_t{picked.row} * grid.width + picked.column] = CellKind::kPicked;
  return grid;
}

std::string nd_pick_text(const LayoutViewData& data) {
  return fmt::format(
      "picked element: column {} (head {} x {} + dim {}), row {}, offset {} elements",
      uint64_t{data.head} * data.layout.head_dim + data.dim, data.head, data.layout.head_dim,
      data.dim, data.slot, data.nd_offset);
}

std::string nz_pick_text(const LayoutViewData& data) {
  const uint64_t column = uint64_t{data.head} * data.layout.head_dim + data.dim;
  const uint32_t n0 = data.layout.nz_width;
  return fmt::format(
      "picked element: column {} = fractal {}, column {} of its {}; row {}; offset {} elements",
      column, column / n0, column % n0, n0, data.slot, data.nz_offset);
}

std::vector<GridCell> nz_memory_path(const LayoutViewData& data) {
  const BlockLayout& layout = data.layout;
  const uint32_t n0 = layout.nz_width;
  const uint64_t fractal = (uint64_t{data.head} * layout.head_dim + data.dim) / n0;
  const auto x0 = static_cast<uint32_t>(fractal * nz_tile_stride(layout));
  std::vector<GridCell> path;
  for (uint32_t row = 0; row < layout.nz_padded_block(); ++row) {
    for (uint32_t column = 0; column < n0; ++column) path.push_back({x0 + column, row});
  }
  if (fractal + 1 < layout.nz_fractal_columns()) path.push_back({x0 + nz_tile_stride(layout), 0});
  return path;
}

StatusOr<LayoutViewData> compute_layout_view(const LayoutViewInput& input) {
  LayoutViewData out;
  KVSIM_ASSIGN_OR_RETURN(out.model, load_model(input.model));
  if (!input.device.empty()) {
    KVSIM_ASSIGN_OR_RETURN(DeviceSpec device, load_device(input.device));
    out.device = std::move(device);
  }
  const DeviceSpec* device = out.device ? &*out.device : nullptr;
  out.dtype = input.dtype;
  // The block `kvsim layout` shows for the same model, device, dtype and block size.
  out.layout = model_block_layout(out.model, device, input.dtype, input.block_size);
  const uint32_t block_size = out.layout.block_size;
  KVSIM_RETURN_IF_ERROR(check_pick(input, out.layout));
  out.token = input.token;
  out.head = input.head;
  out.dim = input.dim;
  out.block_index = input.token / block_size;
  out.slot = static_cast<uint32_t>(input.token % block_size);
  out.nd_offset = out.layout.nd_offset(out.slot, out.head, out.dim);
  out.nz_offset = out.layout.nz_offset(out.slot, out.head, out.dim);
  out.nd = nd_grid(out.layout, out.slot, out.head, out.dim);
  out.nz = nz_grid(out.layout, out.slot, out.head, out.dim);
  out.nd_picked = nd_cell(out.layout, out.slot, out.head, out.dim);
  out.nz_picked = nz_cell(out.layout, out.slot, out.head, out.dim);
  out.explanation =
      layout_report(out.model, out.dtype, out.layout, LayoutPick{out.token, out.head, out.dim});
  return out;
}

}  // namespace kvsim::gui
