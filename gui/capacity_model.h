// The Capacity view's model: the question the view asks (a model, devices, KV storage, TP,
// memory fraction, block size) and the library's answers, shaped for the plots. Qt-free.
//
// Every number comes from plan_capacity() (core/engine/capacity_plan.h), the call behind
// `kvsim capacity`, and every formula text from capacity_report() (core/report/capacity_report.h):
// the GUI shows what the CLI prints. The only arithmetic here splits a device's memory into
// the stacked-bar segments, from fields of the plan:
//
//   weights + activation + non_torch + graphs + measured + kv_data + nz_padding
//     + driver_reserve + unused = device memory
//   weights, activation, non_torch, graphs, measured = the engine's set-aside terms summed by
//                kind (SetAsideKind: non-torch memory, CUDA context and other processes'
//                memory are non_torch; measured = a deployment file's set-aside, alone)
//   kv_data    = num_blocks x kv_bytes_per_block_nd            token data the pool holds
//   nz_padding = num_blocks x (kv_bytes_per_block - kv_bytes_per_block_nd)   0 on ND devices
//   driver_reserve = device memory - the total the engine reads (the runtime's total), which
//                no engine can use; 0 without an engine or where the runtime total is unknown
//   unused     = the rest: 1 - utilization, vllm-ascend's 310P halving, the partial block at
//                the end of the budget (clamped at 0 when the set-aside exceeds the requested
//                memory, where the engine budget has budget_negative set)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/engine/capacity.h"
#include "core/engine/capacity_plan.h"
#include "core/model/device_spec.h"
#include "core/model/model_spec.h"

namespace kvsim::gui {

struct CapacityViewInput {
  std::string model;                 // preset name or YAML path
  std::vector<std::string> devices;  // preset names or YAML paths; at least one
  CapacityQuery query;               // KV dtype, TP, block_size (0 = the engine's)
  EngineQuery engine;                // the engine and its memory utilization
};

// One device's memory in bytes, split as in the header comment.
struct MemoryBreakdown {
  uint64_t weights_bytes = 0;
  uint64_t activation_bytes = 0;
  uint64_t non_torch_bytes = 0;
  uint64_t graphs_bytes = 0;
  uint64_t measured_bytes = 0;
  uint64_t kv_data_bytes = 0;
  uint64_t nz_padding_bytes = 0;
  uint64_t driver_reserve_bytes = 0;
  uint64_t unused_bytes = 0;
};

// The largest number of concurrent sequences of `seq_len` tokens that fit
// (CapacityResult::max_batch_at_seq_len for query.seq_len = seq_len).
struct SeqLenPoint {
  uint64_t seq_len = 0;
  uint64_t max_sequences = 0;
};

struct DeviceCapacity {
  DeviceSpec device;
  CapacityResult result;  // at the input query (its seq_len)
  MemoryBreakdown memory;
  std::vector<SeqLenPoint> max_sequences;  // over seq_len_grid(model)
  std::string report;                      // capacity_report(): formulas with the numbers
};

struct CapacityViewData {
  ModelSpec model;
  CapacityQuery query;
  std::vector<DeviceCapacity> devices;  // in input order
};

// The devices the view compares when nothing else is asked: two NVIDIA generations, the
// H200, an Ascend 910B and the NZ-layout Ascend 310P.
const std::vector<std::string>& default_comparison_devices();

// Sequence lengths for the max-sequences curve: powers of two from 128 below the model's
// max positions, then the max positions itself (1024 when the model names none).
std::vector<uint64_t> seq_len_grid(const ModelSpec& model);

// The memory split of one plan on one device.
MemoryBreakdown memory_breakdown(const DeviceSpec& device, const CapacityPlan& plan);

// Loads the presets and computes every answer; the first failing load or query is returned.
StatusOr<CapacityViewData> compute_capacity_view(const CapacityViewInput& input);

}  // namespace kvsim::gui
