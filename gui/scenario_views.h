// What the Capacity and layout views show for one scenario (`kvsim-gui --render`), Qt-free:
// the scenario's sizing as prepare_simulation() resolves it (simulator/simulation.h), so the
// capacity picture asks exactly what `kvsim capacity` would be asked for that run.
//
//   capacity  the scenario's model on its device and default_comparison_devices();
//             the query of SimulationSetup::capacity_query (KV dtype, quant group, weight
//             dtype, TP = num_devices, memory fraction, block size)
//   layout    the same model and device, the cache dtype and resolved block size; the
//             element picked is (token block_size + 5, head 2, dim 5), clamped to the block
//   blocks    the scenario's eviction policy
// The model and device must be presets or files (a path relative to the scenario's folder);
// an inline map in the scenario has no name the views can load, and is an error.
#pragma once

#include <string>

#include "core/base/status.h"
#include "gui/capacity_model.h"
#include "gui/layout_model.h"
#include "gui/scenario_form_model.h"

namespace kvsim::gui {

struct ScenarioViews {
  CapacityViewInput capacity;
  LayoutViewInput layout;
  EvictionKind eviction = EvictionKind::kLru;  // the scenario's cache.eviction
};

StatusOr<ScenarioViews> views_for_scenario(const ScenarioDocument& document);

}  // namespace kvsim::gui
