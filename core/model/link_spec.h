// LinkSpec: a link KV blocks travel over between serving instances — RDMA NICs between
// nodes, NVLink or HCCS between chips of a node, PCIe through a switch — as the disaggregated
// simulator sees it: one direction's bandwidth and a fixed cost per transfer.
//
//   transfer time = latency_s + bytes / (bandwidth_gbps x 10^9)
//
// Loaded from presets/links/<name>.yaml (PresetKind::kLink) or an inline map in a scenario;
// validated once at load (errors name file:line:column), immutable afterwards. Every preset
// carries a `source:` saying where its figures come from and how they were derived.
#pragma once

#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/config/config_node.h"

namespace kvsim {

struct LinkSpec {
  std::string name;           // preset name, e.g. "rdma-8x200g"
  std::string description;    // one line for `kvsim presets`
  std::string source;         // where the figures come from
  double bandwidth_gbps = 0;  // one direction, GB/s (10^9 bytes per second), > 0
  double latency_s = 0;       // fixed time per transfer (setup, first byte), seconds, >= 0
};

// `default_name` is used when the map has no `name:` field (the preset's file stem).
StatusOr<LinkSpec> link_from_config(const ConfigNode& node, const std::string& default_name);
// An embedded preset by name, or a YAML file by path.
StatusOr<LinkSpec> load_link(std::string_view name_or_path);

}  // namespace kvsim
