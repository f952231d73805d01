// kvsim presets: every embedded model, device, scenario and sweep preset with a one-line
// summary (and, with --json, the summary fields); `kvsim presets show [KIND] NAME` prints one
// preset's YAML exactly as embedded.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "core/base/names.h"
#include "core/base/text_format.h"
#include "core/config/presets.h"
#include "core/engine/capacity.h"
#include "core/model/load_spec.h"

namespace kvsim::cli {
namespace {

constexpr PresetKind kKinds[] = {PresetKind::kModel, PresetKind::kDevice, PresetKind::kScenario,
                                 PresetKind::kSweep, PresetKind::kLink};

std::string description_of(const ConfigNode& node) {
  const ConfigNode* description = node.find("description");
  return description != nullptr && description->is_scalar() ? description->text() : "";
}

StatusOr<nlohmann::json> model_entry(const std::string& name) {
  KVSIM_ASSIGN_OR_RETURN(ModelSpec model, load_model(name));
  const uint64_t bits = kv_bits_per_token(kv_shape(model, 1), KvStorage{});
  nlohmann::json entry = {{"name", name},
                          {"attention", attention_kind_name(model.attention)},
                          {"num_layers", model.num_layers},
                          {"num_kv_heads", model.num_kv_heads},
                          {"head_dim", model.head_dim},
                          {"num_params", model.num_params},
                          {"kv_bytes_per_token_fp16", bits / 8}};
  entry["summary"] =
      fmt::format("{}, {} layers, {} KV heads x {}, {}B params, {} B/token fp16",
                  attention_kind_name(model.attention), model.num_layers, model.num_kv_heads,
                  model.head_dim, format_fixed(model.num_params / 1e9, 2), format_count(bits / 8));
  return entry;
}

StatusOr<nlohmann::json> device_entry(const std::string& name) {
  KVSIM_ASSIGN_OR_RETURN(DeviceSpec device, load_device(name));
  nlohmann::json entry = {{"name", name},
                          {"vendor", device.vendor},
                          {"memory_bytes", device.memory_bytes},
                          {"memory_bandwidth_gbps", device.memory_bandwidth_gbps},
                          {"fp16_tflops", device.fp16_tflops},
                          {"kv_layout", kv_layout_name(device.kv_layout)},
                          {"default_block_size", device.default_block_size}};
  // null where the preset gives no runtime total (engines then take memory_bytes).
  entry["runtime_memory_bytes"] = device.runtime_memory_bytes > 0
                                      ? nlohmann::json(device.runtime_memory_bytes)
                                      : nlohmann::json(nullptr);
  const std::string runtime = device.runtime_memory_bytes > 0
                                  ? " (runtime " + format_bytes(device.runtime_memory_bytes) + ")"
                                  : std::string();
  entry["summary"] =
      fmt::format("{}, {}{}, {} GB/s, {} TFLOPS fp16, {} layout, block {}", device.vendor,
                  format_bytes(device.memory_bytes), runtime,
                  format_number(device.memory_bandwidth_gbps), format_number(device.fp16_tflops),
                  kv_layout_name(device.kv_layout), device.default_block_size);
  return entry;
}

StatusOr<nlohmann::json> described_entry(PresetKind kind, const std::string& name) {
  KVSIM_ASSIGN_OR_RETURN(ConfigNode node, load_preset_node(kind, name));
  return nlohmann::json{{"name", name}, {"summary", description_of(node)}};
}

int run_presets(bool json) {
  nlohmann::json out;
  for (PresetKind kind : kKinds) {
    nlohmann::json list = nlohmann::json::array();
    for (const std::string& name : preset_names(kind)) {
      auto entry = kind == PresetKind::kModel    ? model_entry(name)
                   : kind == PresetKind::kDevice ? device_entry(name)
                                                 : described_entry(kind, name);
      if (!entry.is_ok()) return report_error(entry.status());
      list.push_back(*entry);
    }
    out[std::string(preset_dir(kind))] = list;
  }
  if (json) {
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  for (const auto& [dir, list] : out.items()) {
    std::printf("%s:\n", dir.c_str());
    for (const auto& entry : list) {
      std::printf("  %-16s %s\n", entry["name"].get<std::string>().c_str(),
                  entry["summary"].get<std::string>().c_str());
    }
  }
  return kExitOk;
}

// The kind named `name` ("model" or "models"), or an error listing the kinds.
StatusOr<PresetKind> parse_kind(const std::string& name) {
  std::vector<std::string> valid;
  for (PresetKind kind : kKinds) {
    if (name == preset_kind_name(kind) || name == preset_dir(kind)) return kind;
    valid.emplace_back(preset_kind_name(kind));
  }
  return Status::invalid_argument(unknown_name_message("preset kind", name, valid));
}

// The kinds that have an embedded preset called `name`; with none, an error listing every
// preset (of `only` when it is given) and the nearest.
StatusOr<std::vector<PresetKind>> kinds_named(const std::string& name,
                                              std::optional<PresetKind> only) {
  std::vector<PresetKind> found;
  std::vector<std::string> valid;
  for (PresetKind kind : kKinds) {
    if (only.has_value() && kind != *only) continue;
    if (embedded_preset_text(kind, name) != nullptr) found.push_back(kind);
    for (std::string& other : preset_names(kind)) valid.push_back(std::move(other));
  }
  if (!found.empty()) return found;
  const std::string what =
      only.has_value() ? fmt::format("{} preset", preset_kind_name(*only)) : "preset";
  return Status::not_found(unknown_name_message(what, name, valid));
}

// `args`: NAME or KIND NAME (CLI11 checks the count). The text goes out unchanged, so
// `kvsim presets show x > x.yaml` copies the preset.
int run_show(const std::vector<std::string>& args) {
  std::optional<PresetKind> only;
  if (args.size() == 2) {
    auto kind = parse_kind(args[0]);
    if (!kind.is_ok()) return report_error(kind.status());
    only = *kind;
  }
  const std::string& name = args.back();
  auto kinds = kinds_named(name, only);
  if (!kinds.is_ok()) return report_error(kinds.status());
  if (kinds->size() > 1) {
    std::string kind_names;
    for (PresetKind kind : *kinds) {
      kind_names += (kind_names.empty() ? "" : " and ") + std::string(preset_kind_name(kind));
    }
    return report_error(Status::invalid_argument(
        fmt::format("'{}' is a {} preset: give the kind, e.g. kvsim presets show {} {}", name,
                    kind_names, preset_kind_name(kinds->front()), name)));
  }
  const std::string_view text = *embedded_preset_text(kinds->front(), name);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace

void register_presets_command(CLI::App& app, CommandFn* chosen) {
  auto json = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand("presets", "list the embedded presets");
  command->add_flag("--json", *json, "print JSON");
  auto show_args = std::make_shared<std::vector<std::string>>();
  CLI::App* show = command->add_subcommand("show", "print one preset's YAML exactly as embedded");
  show->add_option("preset", *show_args, "KIND is model, device, scenario, sweep or link")
      ->required()
      ->expected(1, 2)
      ->type_name("[KIND] NAME");
  // The parent's callback runs after its subcommand's: it leaves `show`'s choice in place.
  command->callback([json, show, show_args, chosen] {
    if (show->parsed()) {
      *chosen = [show_args] { return run_show(*show_args); };
    } else {
      *chosen = [json] { return run_presets(*json); };
    }
  });
}

}  // namespace kvsim::cli
