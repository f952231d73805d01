#include "core/model/device_spec.h"

#include <fmt/format.h>

#include <algorithm>

namespace kvsim {
namespace {

Status field_error(const DeviceSpec& device, const std::string& message) {
  return Status::invalid_argument("device '" + device.name + "': " + message);
}

}  // namespace

std::string_view kv_layout_name(KvLayout layout) { return kKvLayoutNames.name(layout); }

StatusOr<KvLayout> parse_kv_layout(std::string_view name) {
  return kKvLayoutNames.parse(name, "kv_layout");
}

uint64_t engine_total_memory_bytes(const DeviceSpec& device) {
  return device.runtime_memory_bytes > 0 ? device.runtime_memory_bytes : device.memory_bytes;
}

bool has_nvlink(const DeviceSpec& device) {
  return device.vendor == "nvidia" && device.interconnect_gbps > device.host_link_gbps;
}

bool supports_kv_dtype(const DeviceSpec& device, DType dtype) {
  return std::find(device.kv_dtypes.begin(), device.kv_dtypes.end(), dtype) !=
         device.kv_dtypes.end();
}

uint32_t nz_fractal_width(const DeviceSpec* device, DType dtype) {
  if (device != nullptr) {
    for (const auto& [entry_dtype, width] : device->nz_fractal_width) {
      if (entry_dtype == dtype) return width;
    }
  }
  return 32 * 8 / dtype_bits(dtype);  // one 32-byte fractal row
}

Status validate_device(const DeviceSpec& device) {
  if (device.memory_bytes == 0) return field_error(device, "memory must be > 0");
  if (device.runtime_memory_bytes > device.memory_bytes) {
    return field_error(device, "runtime_memory_gib must not exceed the device memory");
  }
  if (device.memory_bandwidth_gbps <= 0) {
    return field_error(device, "memory_bandwidth_gbps must be > 0");
  }
  if (device.fp16_tflops <= 0) return field_error(device, "fp16_tflops must be > 0");
  if (device.kv_dtypes.empty())
    return field_error(device, "kv_dtypes must list at least one dtype");
  if (device.kv_memory_factor <= 0 || device.kv_memory_factor > 1) {
    return field_error(device, "kv_memory_factor must be in (0, 1]");
  }
  if (device.default_block_size == 0) return field_error(device, "default_block_size must be > 0");
  if (device.kv_layout == KvLayout::kNz) {
    for (DType dtype : device.kv_dtypes) {
      const auto named =
          std::find_if(device.nz_fractal_width.begin(), device.nz_fractal_width.end(),
                       [&](const auto& entry) { return entry.first == dtype; });
      if (named == device.nz_fractal_width.end()) {
        return field_error(
            device,
            fmt::format("kv_layout nz needs nz_fractal_width for kv dtype {}", dtype_name(dtype)));
      }
    }
  }
  for (const auto& [dtype, width] : device.nz_fractal_width) {
    if (width == 0) {
      return field_error(device,
                         fmt::format("nz_fractal_width for {} must be > 0", dtype_name(dtype)));
    }
  }
  return Status::ok();
}

}  // namespace kvsim
