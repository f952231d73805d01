#include "gui/scenario_form_model.h"

#include <filesystem>

#include "core/base/text_format.h"
#include "core/cache/eviction_policy.h"
#include "core/config/presets.h"
#include "core/config/yaml_io.h"
#include "gui/save_file.h"

namespace kvsim::gui {
namespace {

constexpr std::string_view kInline = "(inline)";

std::vector<std::string> dtype_names() {
  std::vector<std::string> out;
  for (DType dtype : all_dtypes()) out.emplace_back(dtype_name(dtype));
  return out;
}

std::string node_text(const ConfigNode& node) {
  return node.is_scalar() ? node.text() : std::string(kInline);
}

std::string bool_text(bool value) { return value ? "true" : "false"; }

}  // namespace

const std::vector<ScenarioField>& scenario_main_fields() {
  static const std::vector<ScenarioField> kFields = {
      {"model", "Model", {}},
      {"device", "Device", {}},
      {"num_devices", "Devices (TP)", {}},
      {"seed", "Seed", {}},
      {"cache.block_size", "Block size (0 = device's)", {}},
      {"cache.dtype", "KV dtype", dtype_names()},
      {"cache.mem_fraction", "Memory fraction", {}},
      {"cache.prefix_caching", "Prefix caching", {"true", "false"}},
      {"cache.eviction", "Eviction", eviction_names()},
      {"cache.retention", "Retention", {}},
      {"scheduler.max_num_seqs", "Max sequences", {}},
      {"scheduler.max_num_batched_tokens", "Max batched tokens", {}},
      {"scheduler.preemption", "Preemption", sim::preemption_mode_names()},
      {"workload.max_requests", "Max requests (0 = all)", {}},
      {"workload.rate", "Rate, req/s (0 = as given)", {}},
  };
  return kFields;
}

StatusOr<ScenarioDocument> open_scenario(std::string_view name_or_path) {
  ScenarioDocument doc;
  doc.source = std::string(name_or_path);
  doc.name = preset_stem(name_or_path);
  if (looks_like_path(name_or_path)) {
    doc.base_dir = std::filesystem::path(std::string(name_or_path)).parent_path().string();
  }
  KVSIM_ASSIGN_OR_RETURN(doc.tree, sim::load_scenario_tree(name_or_path, {}));
  KVSIM_ASSIGN_OR_RETURN(doc.scenario, sim::scenario_from_config(doc.tree, doc.name, doc.base_dir));
  return doc;
}

std::vector<std::string> field_texts(const sim::Scenario& s) {
  return {node_text(s.model),
          node_text(s.device),
          std::to_string(s.num_devices),
          std::to_string(s.seed),
          std::to_string(s.cache.block_size),
          std::string(dtype_name(s.cache.dtype)),
          format_number(s.cache.mem_fraction),
          bool_text(s.cache.prefix_caching),
          std::string(eviction_name(s.cache.eviction)),
          retention_text(s.cache.retention),
          std::to_string(s.scheduler.max_num_seqs),
          std::to_string(s.scheduler.max_num_batched_tokens),
          std::string(sim::preemption_mode_name(s.scheduler.preemption)),
          std::to_string(s.workload.max_requests),
          format_number(s.workload.rate)};
}

StatusOr<ConfigNode> edited_tree(const ScenarioDocument& document,
                                 const std::vector<std::pair<std::string, std::string>>& edits) {
  const std::vector<ScenarioField>& fields = scenario_main_fields();
  const std::vector<std::string> original = field_texts(document.scenario);
  ConfigNode tree = document.tree;
  for (const auto& [key, text] : edits) {
    bool unchanged = false;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].key == key) unchanged = original[i] == text;
    }
    if (unchanged || text == kInline) continue;
    KVSIM_RETURN_IF_ERROR(sim::apply_override(&tree, key + "=" + text));
  }
  KVSIM_RETURN_IF_ERROR(sim::scenario_from_config(tree, document.name, document.base_dir).status());
  return tree;
}

Status save_scenario(const ConfigNode& tree, const std::string& path) {
  return write_text_file(path, to_yaml(tree));
}

}  // namespace kvsim::gui
