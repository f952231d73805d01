#include "core/preset_loader.h"

#include "core/config_reader.h"
#include "core/enum_names.h"
#include "core/units.h"

namespace kvsim {
namespace {

// Upper bounds that reject absurd values while admitting every real model and device.
constexpr uint32_t kMaxLayers = 10'000;
constexpr uint32_t kMaxHeads = 65'536;
constexpr uint32_t kMaxHeadDim = 65'536;
constexpr uint32_t kMaxWidth = 1u << 26;
constexpr uint32_t kMaxPositions = 1u << 31;
constexpr uint64_t kMaxParams = 10'000'000'000'000'000ull;  // 10^16
constexpr double kMaxGib = 1u << 20;                        // 1 PiB of device memory
constexpr double kMaxRate = 1e7;                            // GB/s or TFLOPS

void read_model_shape(ConfigReader& r, ModelSpec& spec) {
  r.required("num_layers", &spec.num_layers, 1u, kMaxLayers);
  r.required("hidden_size", &spec.hidden_size, 1u, kMaxWidth);
  r.required("num_attention_heads", &spec.num_attention_heads, 1u, kMaxHeads);
  r.required("num_kv_heads", &spec.num_kv_heads, 1u, kMaxHeads);
  r.required("head_dim", &spec.head_dim, 1u, kMaxHeadDim);
  r.required("intermediate_size", &spec.intermediate_size, 1u, kMaxWidth);
  r.required("vocab_size", &spec.vocab_size, 1u, kMaxWidth * 16);
  r.required("max_position_embeddings", &spec.max_position_embeddings, 1u, kMaxPositions);
  r.required("num_params", &spec.num_params, 1ull, kMaxParams);
  spec.num_active_params = spec.num_params;
  r.optional("num_active_params", &spec.num_active_params, 1ull, kMaxParams);
  r.required_with("attention", &spec.attention, parse_into<parse_attention_kind>);
  r.optional("sliding_window_tokens", &spec.sliding_window_tokens, 1u, kMaxPositions);
  r.optional("kv_lora_rank", &spec.kv_lora_rank, 1u, kMaxHeadDim);
  r.optional("qk_rope_head_dim", &spec.qk_rope_head_dim, 1u, kMaxHeadDim);
}

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
  r.optional("memory_gib", &gib, 1e-3, kMaxGib);
  r.optional("memory_gb", &gb, 1e-3, kMaxGib);
  if (!r.status().is_ok()) return;
  if ((gib > 0) == (gb > 0)) {
    return r.fail(
        "give the device memory as exactly one of memory_gib (2^30 bytes) or "
        "memory_gb (vendor GB, 10^9 bytes)");
  }
  spec.memory_bytes =
      gib > 0 ? static_cast<uint64_t>(gib * kBytesPerGiB) : static_cast<uint64_t>(gb * kGB);
}

}  // namespace

StatusOr<ModelSpec> model_from_config(const ConfigNode& node, const std::string& default_name) {
  ModelSpec spec;
  spec.name = default_name;
  ConfigReader r(node, "model preset");
  r.optional("name", &spec.name);
  r.required("source", &spec.source);
  r.allow("description");
  read_model_shape(r, spec);
  KVSIM_RETURN_IF_ERROR(r.finish());
  Status valid = validate_model(spec);
  if (!valid.is_ok()) return error_at(node.mark(), valid.message());
  return spec;
}

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
  r.required("interconnect_gbps", &spec.interconnect_gbps, 1e-3, kMaxRate);
  r.required("host_link_gbps", &spec.host_link_gbps, 1e-3, kMaxRate);
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
