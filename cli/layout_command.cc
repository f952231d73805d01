// kvsim layout: the shape of one KV block in the ND and NZ layouts, their sizes, the NZ
// padding, and where one (token, head, dim) element lands in each.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command.h"
#include "cli/model_options.h"
#include "core/capacity.h"
#include "core/capacity_json.h"
#include "core/config_reader.h"
#include "core/layout_report.h"

namespace kvsim::cli {
namespace {

struct LayoutOptions {
  ModelOptions model;
  std::string device;
  std::string dtype = "fp16";
  uint32_t block_size = 0;
  std::string locate;  // "TOKEN,HEAD,DIM"
  bool json = false;
};

StatusOr<LayoutPick> parse_locate(const std::string& text, const BlockLayout& layout) {
  std::vector<uint64_t> parts;
  std::stringstream list(text);
  for (std::string part; std::getline(list, part, ',');) {
    uint64_t value = 0;
    Status parsed = parse_uint64(part, &value);
    if (!parsed.is_ok()) return parsed.with_context("--locate");
    parts.push_back(value);
  }
  if (parts.size() != 3) return Status::invalid_argument("--locate expects TOKEN,HEAD,DIM");
  if (parts[1] >= layout.kv_heads || parts[2] >= layout.head_dim) {
    return Status::invalid_argument(
        fmt::format("--locate: head must be < {} and dim < {}", layout.kv_heads, layout.head_dim));
  }
  return LayoutPick{parts[0], static_cast<uint32_t>(parts[1]), static_cast<uint32_t>(parts[2])};
}

nlohmann::json to_json(const ModelSpec& model, DType dtype, const BlockLayout& layout,
                       const KvShape& shape, const std::optional<LayoutPick>& locate) {
  const double bytes = dtype_bits(dtype) / 8.0;
  const uint64_t per_block_tensors = uint64_t{shape.num_layers} * shape.num_tensors;
  nlohmann::json out;
  out["dtype"] = dtype_name(dtype);
  out["nd_block_shape"] = layout.nd_shape();
  out["nz_block_shape"] = layout.nz_shape();
  out["nz_fractal_width"] = layout.nz_width;
  out["nd_block_bytes"] = layout.nd_elements() * bytes;
  out["nz_block_bytes"] = layout.nz_elements() * bytes;
  out["nd_block_bytes_all_layers_kv"] = layout.nd_elements() * bytes * per_block_tensors;
  out["nz_block_bytes_all_layers_kv"] = layout.nz_elements() * bytes * per_block_tensors;
  out["nz_padding_fraction"] = layout.nz_padding_fraction();
  if (locate) {
    const uint32_t slot = static_cast<uint32_t>(locate->token % layout.block_size);
    out["block"] = locate->token / layout.block_size;
    out["slot"] = slot;
    out["nd_offset"] = layout.nd_offset(slot, locate->head, locate->dim);
    out["nz_offset"] = layout.nz_offset(slot, locate->head, locate->dim);
  }
  auto groups = layer_group_bytes(model, KvStorage{dtype, 0}, 1);
  if (groups.is_ok()) out["layer_groups"] = layer_groups_json(*groups);
  return out;
}

int run_layout(const LayoutOptions& o) {
  auto model = resolve_model(o.model);
  if (!model.is_ok()) return report_error(model.status());
  auto device = resolve_optional_device(o.device);
  if (!device.is_ok()) return report_error(device.status());
  auto dtype = parse_dtype(o.dtype);
  if (!dtype.is_ok()) return report_error(dtype.status());
  const DeviceSpec* device_ptr = device->has_value() ? &device->value() : nullptr;
  const uint32_t block_size = o.block_size > 0        ? o.block_size
                              : device_ptr != nullptr ? device_ptr->default_block_size
                                                      : 16;
  const KvShape shape = kv_shape(*model, 1);
  const BlockLayout layout = block_layout(shape, block_size, nz_fractal_width(device_ptr, *dtype));
  std::optional<LayoutPick> locate;
  if (!o.locate.empty()) {
    auto parsed = parse_locate(o.locate, layout);
    if (!parsed.is_ok()) return report_error(parsed.status());
    locate = *parsed;
  }
  if (o.json) {
    std::printf("%s\n", to_json(*model, *dtype, layout, shape, locate).dump(2).c_str());
  } else {
    std::printf("%s", layout_report(*model, *dtype, layout, locate).c_str());
  }
  return kExitOk;
}

}  // namespace

void register_layout_command(CLI::App& app, CommandFn* chosen) {
  auto options = std::make_shared<LayoutOptions>();
  CLI::App* command =
      app.add_subcommand("layout", "one KV block in the ND and NZ layouts, and element offsets");
  add_model_options(command, &options->model);
  command->add_option("--device", options->device, "device preset or YAML file (sets n0, block)");
  command->add_option("--dtype", options->dtype, "KV dtype");
  command->add_option("--block-size", options->block_size, "tokens per block")
      ->check(CLI::Range(1u, 1u << 20));
  command->add_option("--locate", options->locate, "TOKEN,HEAD,DIM: where one element lands");
  command->add_flag("--json", options->json, "print JSON");
  command->callback([options, chosen] { *chosen = [options] { return run_layout(*options); }; });
}

}  // namespace kvsim::cli
