// kvsim layout: the shape of one KV block in the ND and NZ layouts, their sizes, the NZ
// padding, and where one (token, head, dim) element lands in each.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <sstream>

#include "cli/command.h"
#include "cli/model_options.h"
#include "core/config/config_reader.h"
#include "core/report/layout_json.h"

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
  const uint32_t max_index = std::numeric_limits<uint32_t>::max();
  const LayoutPick pick{parts[0], static_cast<uint32_t>(std::min<uint64_t>(parts[1], max_index)),
                        static_cast<uint32_t>(std::min<uint64_t>(parts[2], max_index))};
  KVSIM_RETURN_IF_ERROR(check_layout_pick(pick, layout));
  return pick;
}

int run_layout(const LayoutOptions& o) {
  auto model = resolve_model(o.model);
  if (!model.is_ok()) return report_error(model.status());
  auto device = resolve_optional_device(o.device);
  if (!device.is_ok()) return report_error(device.status());
  auto dtype = parse_dtype(o.dtype);
  if (!dtype.is_ok()) return report_error(dtype.status());
  const DeviceSpec* device_ptr = device->has_value() ? &device->value() : nullptr;
  const BlockLayout layout = model_block_layout(*model, device_ptr, *dtype, o.block_size);
  std::optional<LayoutPick> locate;
  if (!o.locate.empty()) {
    auto parsed = parse_locate(o.locate, layout);
    if (!parsed.is_ok()) return report_error(parsed.status());
    locate = *parsed;
  }
  if (o.json) {
    std::printf("%s\n", layout_to_json(*model, *dtype, layout, locate).dump(2).c_str());
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
  command->add_option("--kv-dtype,--dtype", options->dtype, "KV dtype (--dtype: the old name)");
  command->add_option("--block-size", options->block_size, "tokens per block")
      ->check(CLI::Range(1u, 1u << 20));
  command->add_option("--locate", options->locate, "TOKEN,HEAD,DIM: where one element lands");
  command->add_flag("--json", options->json, "print JSON");
  command->callback([options, chosen] { *chosen = [options] { return run_layout(*options); }; });
}

}  // namespace kvsim::cli
