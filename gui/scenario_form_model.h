// The Simulation view's scenario editor, Qt-free: a scenario opened from a preset or a YAML
// file, the main fields a user edits, and the edited tree to run or save.
//
// Edits go through the simulator's own `--set` path: each changed field becomes
// apply_override(tree, "key=value") (simulator/scenario/scenario.h) and the result is checked by
// scenario_from_config(), so a bad value is reported exactly as `kvsim simulate --set` reports
// it. Only fields whose text differs from the opened scenario's are applied, so saving an
// unedited scenario writes the tree it was read from (core/config/yaml_io.h to_yaml).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/config/config_node.h"
#include "simulator/scenario/scenario.h"

namespace kvsim::gui {

struct ScenarioField {
  std::string key;                   // dotted scenario key, e.g. "cache.block_size"
  std::string label;                 // shown in the form
  std::vector<std::string> choices;  // the valid values; empty = free text
};

// model, device, num_devices, seed, cache.{block_size, dtype, mem_fraction, prefix_caching,
// eviction, retention}, scheduler.{max_num_seqs, max_num_batched_tokens, preemption},
// workload.{max_requests, rate}.
const std::vector<ScenarioField>& scenario_main_fields();

struct ScenarioDocument {
  std::string source;      // the preset name or path it was opened from
  std::string name;        // preset name or file stem
  std::string base_dir;    // a file's folder (relative paths in it); "" for presets
  ConfigNode tree;         // as read
  sim::Scenario scenario;  // typed, as read
};

StatusOr<ScenarioDocument> open_scenario(std::string_view name_or_path);

// The text of each main field in `scenario`, in scenario_main_fields() order. An inline model
// or device (a map in the YAML) shows as "(inline)".
std::vector<std::string> field_texts(const sim::Scenario& scenario);

// `edits` are (key, text) pairs; those whose text equals the document's are skipped, the rest
// applied as overrides in order. The result is checked with scenario_from_config().
StatusOr<ConfigNode> edited_tree(const ScenarioDocument& document,
                                 const std::vector<std::pair<std::string, std::string>>& edits);

// Writes to_yaml(tree) to `path`.
Status save_scenario(const ConfigNode& tree, const std::string& path);

}  // namespace kvsim::gui
