#include "core/model/load_spec.h"

#include "core/config/presets.h"
#include "core/model/device_config.h"
#include "core/model/hf_config.h"
#include "core/model/model_config.h"

namespace kvsim {

StatusOr<ModelSpec> load_model(std::string_view name_or_path) {
  if (is_hf_config_path(name_or_path)) {
    KVSIM_ASSIGN_OR_RETURN(HfImport imported, import_hf_config_file(std::string(name_or_path),
                                                                    preset_stem(name_or_path)));
    return imported.model;
  }
  KVSIM_ASSIGN_OR_RETURN(ConfigNode node, load_preset_node(PresetKind::kModel, name_or_path));
  return model_from_config(node, preset_stem(name_or_path));
}

StatusOr<DeviceSpec> load_device(std::string_view name_or_path) {
  KVSIM_ASSIGN_OR_RETURN(ConfigNode node, load_preset_node(PresetKind::kDevice, name_or_path));
  return device_from_config(node, preset_stem(name_or_path));
}

}  // namespace kvsim
