// libFuzzer target: any bytes given to the preset loader end in a spec or a Status, never a
// crash, a hang or undefined behaviour. The loaded spec is pushed through the capacity math.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/config/yaml_io.h"
#include "core/engine/capacity.h"
#include "core/model/device_config.h"
#include "core/model/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto node = kvsim::parse_yaml(text, "fuzz.yaml");
  if (!node.is_ok()) return 0;
  auto model = kvsim::model_from_config(*node, "fuzz");
  auto device = kvsim::device_from_config(*node, "fuzz");
  if (model.is_ok()) {
    kvsim::CapacityQuery query;
    auto without_device = kvsim::compute_capacity(*model, nullptr, query);
    (void)without_device;
    if (device.is_ok()) {
      auto with_device = kvsim::compute_capacity(*model, &*device, query);
      (void)with_device;
    }
  }
  (void)kvsim::to_yaml(*node);
  return 0;
}
