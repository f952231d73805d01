// DeviceSpec: one accelerator as the capacity planner and the cost model see it.
//
// Loaded once from YAML (core/model/device_config.h), validated there, immutable afterwards.
// Units: bytes for memory, GB/s (10^9 bytes per second) for every *_gbps bandwidth,
// 10^12 operations per second for TFLOPS/TOPS. All figures are per device (one chip).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/enum_names.h"
#include "core/base/status.h"
#include "core/model/dtype.h"

namespace kvsim {

enum class KvLayout : uint8_t {
  kNd,  // [block_size, kv_heads, head_dim] row-major (NVIDIA, Ascend 910)
  kNz,  // fractal [ceil(kv_heads*head_dim/n0), ceil(block_size/16)*16, n0] (Ascend 310P)
};

// The YAML / CLI names: "nd", "nz" (the kernels parse their --kv-layout with this table too).
inline constexpr EnumNames<KvLayout, 2> kKvLayoutNames{{{
    {KvLayout::kNd, "nd"},
    {KvLayout::kNz, "nz"},
}}};
std::string_view kv_layout_name(KvLayout layout);
StatusOr<KvLayout> parse_kv_layout(std::string_view name);  // an error names "kv_layout"

struct DeviceSpec {
  std::string name;    // preset name, e.g. "a100-80g"
  std::string vendor;  // "nvidia", "huawei"
  std::string source;  // datasheet citation; derived figures say how they were derived

  uint64_t memory_bytes = 0;  // device memory; YAML gives memory_gib, memory_gb or
                              // memory_mib (the driver-reported total, nvidia-smi MiB)
  // The total the runtime reports to a process (torch.cuda.mem_get_info()[1], the CUDA or
  // ROCm total), which every engine budgets from: smaller than nvidia-smi's by what the
  // driver keeps (0.3-0.9 GiB on NVIDIA cards, 3 GiB on a 64 GB Ascend 910B). YAML
  // runtime_memory_gib; 0: not known.
  uint64_t runtime_memory_bytes = 0;
  double memory_bandwidth_gbps = 0;  // peak device-memory bandwidth, GB/s
  double fp16_tflops = 0;            // dense FP16 tensor throughput
  double bf16_tflops = 0;            // dense BF16 throughput; 0 where unsupported
  double int8_tops = 0;              // dense INT8 throughput
  // Dense FP8 throughput; 0 where the chip has no FP8 tensor cores (Ampere, Ascend), which
  // run FP8 checkpoints weight-only, at the 16-bit rate (vLLM's Marlin kernels on Ampere).
  double fp8_tflops = 0;
  double interconnect_gbps = 0;  // device-to-device (NVLink/HCCS), per device, GB/s
  double host_link_gbps = 0;     // device<->host (PCIe), one direction, GB/s
  // The GPUs of a node meet at an NVSwitch that supports multicast (NVLink SHARP: HGX/DGX
  // Hopper and later), so cuMulticastGetGranularity answers; YAML nvlink_multicast, default
  // false. Engines that size buffers by its granularity set more aside (core/engine/engine_memory).
  bool nvlink_multicast = false;

  KvLayout kv_layout = KvLayout::kNd;
  // NZ only: fractal width n0 in elements per KV dtype (16 for 16-bit types, 32 for int8).
  std::vector<std::pair<DType, uint32_t>> nz_fractal_width;
  std::vector<DType> kv_dtypes;  // KV dtypes the device supports (NZ chips have no bf16)
  // Share of the free memory that may hold KV cache (vllm-ascend gives 310P half: 0.5).
  double kv_memory_factor = 1.0;
  uint32_t default_block_size = 16;  // tokens per block: 16 on NVIDIA, 128 on Ascend
  double price_per_hour_usd = 0;     // optional, for cost per token in SLO sweeps; 0 = unknown
};

// Checks ranges and consistency (NZ devices name a fractal width for each KV dtype).
Status validate_device(const DeviceSpec& device);

// The total an engine reads on `device`: its runtime total where known, else its memory.
uint64_t engine_total_memory_bytes(const DeviceSpec& device);

// True for an NVIDIA device whose device-to-device link is faster than its host link (NVLink
// or an NVSwitch rather than PCIe), where NCCL's buffers to a peer are much larger.
bool has_nvlink(const DeviceSpec& device);

// True when `dtype` is in device.kv_dtypes.
bool supports_kv_dtype(const DeviceSpec& device, DType dtype);

// The NZ fractal width n0 for `dtype` on `device`; when the device does not name one
// (an ND device, used to show what NZ would look like), 32 bytes of elements:
// 16 for 16-bit types, 32 for 8-bit, 64 for int4, 8 for fp32.
uint32_t nz_fractal_width(const DeviceSpec* device, DType dtype);

}  // namespace kvsim
