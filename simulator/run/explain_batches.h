// Batches explained by a setup's cost model: one iteration's per-operator breakdown for each
// batch spec (simulator/cost/batch_spec.h), as the engine of that setup would cost it. The
// GUI's cost bars; `kvsim cost` prints the same for a model and device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/engine/parallel_layout.h"
#include "simulator/engine/cost_model.h"
#include "simulator/setup/engine_setup.h"

namespace kvsim::sim {

struct ExplainedBatch {
  std::string spec;  // a batch spec (simulator/cost/batch_spec.h)
  CostBreakdown cost;
};

// The engine's cost model (its scenario's cost_model section, one rank of `layout`: the
// scenario's, or a cluster's first replica's) over each spec; a bad spec or cost model
// configuration is an error.
StatusOr<std::vector<ExplainedBatch>> explain_engine_batches(const EngineSetup& setup,
                                                             const ParallelLayout& layout,
                                                             const std::vector<std::string>& specs);

}  // namespace kvsim::sim
