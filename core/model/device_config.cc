#include "core/model/device_config.h"

#include "core/base/enum_names.h"
#include "core/base/units.h"
#include "core/config/config_reader.h"

namespace kvsim {
namespace {

// Upper bounds that reject absurd values while admitting every real device.
constexpr double kMaxGib = 1u << 20;  // 1 PiB of device memory
constexpr double kMaxRate = 1e7;      // GB/s or TFLOPS

void read_kv_dtypes(ConfigReader& r, DeviceSpec& spec) {
  const ConfigNode* list = r.child("kv_dtypes");
  if (list == nullptr) {
    if (r.status().is_ok()) r.fail("missing required field 'kv_dtypes' in device preset");
    return;
  }
  if (!list->is_sequence()) return r.fail(*list, "kv_dtypes must be a list such as [fp16, int8]");
  for (const ConfigNode& item : list->items()) {
    DType dtype{};
    Status parsed = item.is_scalar() ? parse_into<parse_dtype>(item.text(), &dtype)
                                     : Status::invalid_argument("expected a dtype name");
    if (!parsed.is_ok()) return r.fail(item, "kv_dtypes: " + parsed.message());
    spec.kv_dtypes.push_back(dtype);
  }
}

void read_nz_widths(ConfigReader& r, DeviceSpec& spec) {
  const ConfigNode* map = r.child("nz_fractal_width");
  if (map == nullptr) return;
  if (!map->is_map()) return r.fail(*map, "nz_fractal_width must map dtypes to widths");
  for (const auto& [name, value] : map->entries()) {
    DType dtype{};
    Status parsed = parse_into<parse_dtype>(name, &dtype);
    uint64_t width = 0;
    if (parsed.is_ok()) {
      parsed = value.is_scalar() ? parse_uint64(value.text(), &width)
                                 : Status::invalid_argument("expected a number");
    }
    if (parsed.is_ok() && (width == 0 || width > 1024)) {
      parsed = Status::invalid_argument("width must be in [1, 1024]");
    }
    if (!parsed.is_ok()) return r.fail(value, "nz_fractal_width." + name + ": " + parsed.message());
    spec.nz_fractal_width.emplace_back(dtype, static_cast<uint32_t>(width));
  }
}

void read_memory(ConfigReader& r, DeviceSpec& spec) {
  double gib = 0;
  double gb = 0;
  double mib = 0;
  r.optional("memory_gib", &gib, 1e-3, kMaxGib);
  r.optional("memory_gb", &gb, 1e-3, kMaxGib);
  r.optional("memory_mib", &mib, 1e-3, kMaxGib * 1024);
  if (!r.status().is_ok()) return;
  if ((gib > 0) + (gb > 0) + (mib > 0) != 1) {
    return r.fail(
        "give the device memory as exactly one of memory_gib (2^30 bytes), memory_gb "
        "(vendor GB, 10^9 bytes) or memory_mib (2^20 bytes, as nvidia-smi and npu-smi report)");
  }
  spec.memory_bytes = gib > 0  ? static_cast<uint64_t>(gib * kBytesPerGiB)
                      : gb > 0 ? static_cast<uint64_t>(gb * kGB)
                               : static_cast<uint64_t>(mib * static_cast<double>(kMiB));
  double runtime_gib = 0;
  r.optional("runtime_memory_gib", &runtime_gib, 1e-3, kMaxGib);
  spec.runtime_memory_bytes = static_cast<uint64_t>(runtime_gib * kBytesPerGiB);
}

}  // namespace

StatusOr<DeviceSpec> device_from_config(const ConfigNode& node, const std::string& default_name) {
  DeviceSpec spec;
  spec.name = default_name;
  ConfigReader r(node, "device preset");
  r.optional("name", &spec.name);
  r.required("vendor", &spec.vendor);
  r.required("source", &spec.source);
  r.allow("description");
  read_memory(r, spec);
  r.required("memory_bandwidth_gbps", &spec.memory_bandwidth_gbps, 1e-3, kMaxRate);
  r.required("fp16_tflops", &spec.fp16_tflops, 1e-3, kMaxRate);
  r.optional("bf16_tflops", &spec.bf16_tflops, 0.0, kMaxRate);
  r.required("int8_tops", &spec.int8_tops, 1e-3, kMaxRate);
  r.optional("fp8_tflops", &spec.fp8_tflops, 0.0, kMaxRate);
  r.required("interconnect_gbps", &spec.interconnect_gbps, 1e-3, kMaxRate);
  r.required("host_link_gbps", &spec.host_link_gbps, 1e-3, kMaxRate);
  r.optional("nvlink_multicast", &spec.nvlink_multicast);
  r.required_with("kv_layout", &spec.kv_layout, parse_into<parse_kv_layout>);
  read_nz_widths(r, spec);
  read_kv_dtypes(r, spec);
  r.required("kv_memory_factor", &spec.kv_memory_factor, 1e-3, 1.0);
  r.required("default_block_size", &spec.default_block_size, 1u, 1u << 20);
  r.optional("price_per_hour_usd", &spec.price_per_hour_usd, 0.0, 1e6);
  KVSIM_RETURN_IF_ERROR(r.finish());
  Status valid = validate_device(spec);
  if (!valid.is_ok()) return error_at(node.mark(), valid.message());
  return spec;
}

}  // namespace kvsim
