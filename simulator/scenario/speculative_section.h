// The scenario's `speculative:` section (simulator/engine/speculation.h has the rules):
//
//   speculative:
//     method: eagle3                # eagle eagle3 mtp ngram draft_model
//     num_speculative_tokens: 3     # k, 1..32
//     acceptance: [0.8, 0.6, 0.45]  # per-position rates r_1..r_k, or one i.i.d. rate p
//     draft_model: llama3.2-1b      # draft_model only: a model preset name, path or map
//     seed: 7                       # the acceptance draws' (default: the scenario's seed)
//
// Absent: no speculative decoding, and every output is as without the feature. The vllm
// scheduler policy only (vLLM v1 is where speculative decoding runs).
#pragma once

#include <cstdint>
#include <string>

#include "core/base/status.h"
#include "core/config/config_node.h"
#include "simulator/engine/speculation.h"

namespace kvsim::sim {

struct SpeculativeSection {
  bool present = false;
  SpeculativeConfig config;  // acceptance as per-position rates (acceptance_rates())
  ConfigNode draft_model;    // draft_model: the preset reference (else null)
  SourceMark mark;           // the section, for errors found when the engine is set up
};

// Reads the section; relative draft_model paths are made relative to `base_dir`; without a
// `seed` the draws take `default_seed` (the scenario's).
Status read_speculative(const ConfigNode& node, const std::string& base_dir, uint64_t default_seed,
                        SpeculativeSection* out);

}  // namespace kvsim::sim
