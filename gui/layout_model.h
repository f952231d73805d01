// The layout half of the "Cache and layout" view: one layer's K (or V) block of a model drawn
// cell by cell in the ND and the NZ layout, the padding cells marked, and one element picked
// by (token, head, dim) marked in both. Qt-free.
//
// Geometry and offsets come from core/model/kv_layout.h (BlockLayout), sized like `kvsim layout`
// (the whole model's KV heads, tp 1; block size: the input's, else the device's, else 16; NZ
// fractal width from nz_fractal_width()). The grids are pictures of the block, row 0 on top:
//
//   ND grid: block_size rows (slots) x kv_heads*head_dim columns, memory runs row by row.
//   NZ grid: the fractal columns side by side, one gap column between them; each is
//            padded_block rows x n0 columns and is contiguous in memory, row by row:
//
//            | tile 0: n0 cols | gap | tile 1 | gap | ... | tile F-1 (last cols padded) |
//            rows block_size .. padded_block-1 of every tile are padding
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/model/device_spec.h"
#include "core/model/dtype.h"
#include "core/model/kv_layout.h"
#include "core/model/model_spec.h"

namespace kvsim::gui {

// What a cell of a grid shows. Heads alternate between two shades so that head boundaries
// are visible; the picked element wins over its head's shade.
enum class CellKind : uint8_t {
  kEvenHead = 0,  // an element of an even-numbered head
  kOddHead = 1,   // an element of an odd-numbered head
  kPadding = 2,   // an NZ padding element (stored, never read)
  kGap = 3,       // not memory: the space drawn between NZ fractal columns
  kPicked = 4,    // the element picked by (token, head, dim)
};

// A position in a grid: column from the left, row from the top.
struct GridCell {
  uint32_t column = 0;
  uint32_t row = 0;
};

struct CellGrid {
  uint32_t width = 0;           // columns
  uint32_t height = 0;          // rows; row 0 is drawn on top
  std::vector<CellKind> cells;  // row-major, width x height
  CellKind at(uint32_t column, uint32_t row) const { return cells[uint64_t{row} * width + column]; }
};

struct LayoutViewInput {
  std::string model;   // preset name or YAML path
  std::string device;  // preset name or path; "" = none (NZ drawn with the dtype's n0)
  DType dtype = DType::kFp16;
  uint32_t block_size = 0;  // tokens per block; 0 = the device's default, 16 without one
  uint64_t token = 0;       // the picked element: token position in its sequence,
  uint32_t head = 0;        //   KV head (< kv_heads),
  uint32_t dim = 0;         //   element of the head vector (< head_dim)
};

// Grids above this many cells are refused (a block size typed by mistake would otherwise
// allocate gigabytes).
inline constexpr uint64_t kMaxGridCells = uint64_t{1} << 24;

struct LayoutViewData {
  ModelSpec model;
  std::optional<DeviceSpec> device;
  DType dtype = DType::kFp16;
  BlockLayout layout;
  uint64_t token = 0;
  uint32_t head = 0;
  uint32_t dim = 0;
  uint64_t block_index = 0;  // token / block_size: the block of the sequence holding it
  uint32_t slot = 0;         // token % block_size
  uint64_t nd_offset = 0;    // BlockLayout::nd_offset(slot, head, dim), elements
  uint64_t nz_offset = 0;    // BlockLayout::nz_offset(slot, head, dim), elements
  CellGrid nd;
  CellGrid nz;
  GridCell nd_picked;  // where the picked element is drawn in each grid
  GridCell nz_picked;
  std::string explanation;  // shapes, sizes, padding and both offset formulas with numbers
};

// Where element (slot, head, dim) is drawn in each grid (preconditions as nd_offset()).
GridCell nd_cell(const BlockLayout& layout, uint32_t slot, uint32_t head, uint32_t dim);
GridCell nz_cell(const BlockLayout& layout, uint32_t slot, uint32_t head, uint32_t dim);

// The element offset (core/model/kv_layout.h) of the memory a drawn cell stands for, padding
// included; empty for an NZ gap column or a cell outside the grid.
std::optional<uint64_t> nd_cell_offset(const BlockLayout& layout, GridCell cell);
std::optional<uint64_t> nz_cell_offset(const BlockLayout& layout, GridCell cell);

// The picked element as each panel names it: its logical column (head x head_dim + dim), for
// NZ also its fractal and its column inside it, the row and the offset. The NZ grid draws a
// gap column between fractals, so a drawn x is not a column: these never print one.
std::string nd_pick_text(const LayoutViewData& data);
std::string nz_pick_text(const LayoutViewData& data);

// The order that defines NZ, over the picked element's fractal: its cells in memory order
// (row 0 left to right, then row 1, ..., the padding rows last; n0 x padded_block cells), then
// the first cell of the next fractal, which memory reaches next (absent for the last one).
std::vector<GridCell> nz_memory_path(const LayoutViewData& data);

// Name of a cell kind for the CSV: "head_even", "head_odd", "padding", "gap", "picked".
std::string_view cell_kind_name(CellKind kind);

// The grids of a block layout with (slot, head, dim) picked (preconditions as nd_offset()).
CellGrid nd_grid(const BlockLayout& layout, uint32_t slot, uint32_t head, uint32_t dim);
CellGrid nz_grid(const BlockLayout& layout, uint32_t slot, uint32_t head, uint32_t dim);

// Loads the presets, checks head < kv_heads, dim < head_dim and the grid size, and builds
// the view data.
StatusOr<LayoutViewData> compute_layout_view(const LayoutViewInput& input);

}  // namespace kvsim::gui
