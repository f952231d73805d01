// SweepSpec: a batch of runs described in one YAML file, expanded into points.
//
//   description: "every device x KV dtype"
//   kind: simulate            # simulate (default) | ppl
//   base: default             # a scenario preset name, a YAML path, or an inline map
//   set:                      # optional: dotted keys set on the base for every point
//     workload.synthetic.num_requests: 600
//   grid:                     # dotted scenario keys -> lists; the cross product
//     device: [a100-80g, h100-sxm]
//     cache.dtype: [fp16, int8]
//   zip:                      # optional: groups of lists that vary together (equal lengths)
//     - cache.block_size: [16, 128]
//       scheduler.max_num_batched_tokens: [2048, 8192]
//   slo: {ttft_p99_s: 2.0, tpot_p99_s: 0.1}   # optional: capacity search (slo_search.h)
//   output: out/devices-vs-dtype              # default output folder
//
// Expansion order is deterministic: grid keys in file order with the last one varying fastest,
// then each zip group in order (the cross product of grid and zip groups). Every point's
// configuration is the base tree with the point's values set at their dotted paths; its id is
// a hash of that resolved configuration, so the same configuration has the same id in every
// run, shard and machine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/config/config_node.h"

namespace kvsim::sim {

enum class SweepKind { kSimulate, kPpl };

// One assignment of a grid or zip key.
struct SweepValue {
  std::string key;   // dotted scenario path, e.g. "cache.dtype"
  ConfigNode value;  // the value set there
  std::string text;  // the value as one line of text (for names and CSV)
};

struct SweepPoint {
  size_t index = 0;                // position in expansion order
  std::string id;                  // 16 hex digits: hash of kind + resolved configuration
  std::string name;                // "device=a100-80g,cache.dtype=fp16"
  std::vector<SweepValue> values;  // one per grid key and zip key, in column order
  ConfigNode config;               // the resolved configuration
};

struct SweepSpec {
  std::string source;  // file the sweep came from (for messages)
  std::string description;
  SweepKind kind = SweepKind::kSimulate;
  ConfigNode base;                // the base configuration tree
  std::string base_dir;           // folder relative paths in the base resolve against
  std::vector<std::string> keys;  // grid keys then zip keys: the CSV columns
  std::vector<std::pair<std::string, std::vector<ConfigNode>>> grid;
  std::vector<std::vector<std::pair<std::string, std::vector<ConfigNode>>>> zip;
  ConfigNode slo;      // null when the sweep is not a capacity search
  std::string output;  // default output folder ("" = none given)
};

// Reads a sweep from its tree. `load_base` resolves a `base:` given by name or path
// (scenarios for simulate sweeps); an inline map is used as it is. For a sweep read from a
// file (`source` a path), a relative base path and the base's own relative paths resolve
// against the sweep file's folder.
using BaseLoader = StatusOr<ConfigNode> (*)(SweepKind kind, const std::string& name_or_path);
StatusOr<SweepSpec> sweep_from_config(const ConfigNode& node, const std::string& source,
                                      BaseLoader load_base);

// Loads a sweep by preset name (presets/sweeps/) or path, resolving `base:` from the
// scenario presets.
StatusOr<SweepSpec> load_sweep(const std::string& name_or_path);

// A sweep given as YAML text (a Python dict, as JSON); `source` names it in messages. A
// relative `base:` path resolves against the working directory.
StatusOr<SweepSpec> sweep_from_yaml(std::string_view text, const std::string& source);

// The points of a sweep in expansion order. Fails when a value cannot be set at its path.
StatusOr<std::vector<SweepPoint>> expand_sweep(const SweepSpec& spec);

// The points of shard `index` of `count` (index in [0, count)): points whose expansion index
// is congruent to `index` modulo `count`. Shards 0..count-1 partition the sweep.
std::vector<SweepPoint> select_shard(const std::vector<SweepPoint>& points, size_t index,
                                     size_t count);

// One line of text for a value: a scalar's text, else its YAML in flow style.
std::string value_text(const ConfigNode& value);

// The 16-hex-digit FNV-1a hash used for point ids.
std::string content_hash(const std::string& text);

std::string_view sweep_kind_name(SweepKind kind);

}  // namespace kvsim::sim
