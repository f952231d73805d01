// --speculative METHOD:K and --draft-model M, the flags `kvsim cost` and `kvsim capacity` take
// for a speculative drafter (simulator/engine/speculation.h), as the scenario section they
// stand for (simulator/scenario/speculative_section.h; acceptance is not theirs to know).
#pragma once

#include <string>

#include "core/base/status.h"
#include "simulator/scenario/speculative_section.h"

namespace CLI {
class App;
}

namespace kvsim::cli {

struct SpeculativeOptions {
  std::string speculative;  // METHOD:K, e.g. eagle3:3; empty: no drafter
  std::string draft_model;  // --speculative draft_model:K: the draft's preset or file
  bool given() const { return !speculative.empty(); }
};

void add_speculative_options(CLI::App* command, SpeculativeOptions* options);

// The section the flags stand for; exit-2 errors name the flag.
StatusOr<sim::SpeculativeSection> speculative_section(const SpeculativeOptions& o);

}  // namespace kvsim::cli
