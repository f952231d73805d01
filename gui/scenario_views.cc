#include "gui/scenario_views.h"

#include <algorithm>
#include <filesystem>

#include "core/config/presets.h"
#include "simulator/simulation.h"

namespace kvsim::gui {
namespace {

constexpr uint32_t kPickOffset = 5;  // slot and dim of the picked element
constexpr uint32_t kPickHead = 2;

// The preset name or loadable path of a scenario's model or device entry.
StatusOr<std::string> entry_reference(const ConfigNode& node, const ScenarioDocument& document,
                                      const char* what) {
  if (!node.is_scalar()) {
    return Status::invalid_argument(std::string("the scenario's ") + what +
                                    " is an inline map; the views need a preset name or a file");
  }
  const std::string& text = node.text();
  if (!looks_like_path(text) || document.base_dir.empty() ||
      std::filesystem::path(text).is_absolute()) {
    return text;
  }
  return (std::filesystem::path(document.base_dir) / text).string();
}

}  // namespace

StatusOr<ScenarioViews> views_for_scenario(const ScenarioDocument& document) {
  KVSIM_ASSIGN_OR_RETURN(sim::SimulationSetup setup, sim::prepare_simulation(document.scenario));
  KVSIM_ASSIGN_OR_RETURN(std::string model,
                         entry_reference(document.scenario.model, document, "model"));
  KVSIM_ASSIGN_OR_RETURN(std::string device,
                         entry_reference(document.scenario.device, document, "device"));
  ScenarioViews views;
  views.capacity.model = model;
  views.capacity.devices = {device};
  for (const std::string& name : default_comparison_devices()) {
    if (name != setup.device.name && name != device) views.capacity.devices.push_back(name);
  }
  views.capacity.query = setup.capacity_query;
  const KvShape shape = kv_shape(setup.model, 1);
  const uint32_t block_size = setup.capacity.block_size;
  views.layout.model = model;
  views.layout.device = device;
  views.layout.dtype = document.scenario.cache.dtype;
  views.layout.block_size = block_size;
  views.layout.token = block_size + std::min(kPickOffset, block_size - 1);
  views.layout.head = std::min(kPickHead, shape.heads - 1);
  views.layout.dim = std::min(kPickOffset, shape.vector_elements - 1);
  views.eviction = document.scenario.cache.eviction;
  return views;
}

}  // namespace kvsim::gui
