// Deployment: a model on a device under an engine, with the memory that engine set aside as
// measured from its start-up log. `kvsim calibrate --from-log` writes one; `kvsim capacity
// --deployment` and a scenario's `deployment:` read it. Its KV budget is
//   floor((floor(total x utilization) - set_aside_bytes) x kv_factor)
// (core/engine/engine_memory.h with a measured set-aside), which reproduces the log's KV cache
// exactly. The file (YAML):
//
//   source: "kvsim calibrate --from-log run.log"    # where it came from
//   model: {name: ..., num_layers: ...}              # inline preset map, preset name or path
//   device: {name: ..., memory_gib: ...}             # (relative paths: from the file's folder)
//   tp: 1
//   weight_dtype: fp16
//   kv_dtype: fp16
//   block_size: 16                                   # 0: the engine's default
//   engine: {name: vllm, version: 0.11.0, memory_utilization: 0.9, max_model_len: 131072, ...}
//   total_memory_bytes: 47696805888                  # what the engine read (default: device's)
//   set_aside_bytes: 4982509158                      # measured: requested - KV budget
//   logged: {kv_tokens: 463136, ...}                 # figures it was calibrated on (kept as is)
#pragma once

#include <cstdint>
#include <string>

#include "core/base/status.h"
#include "core/config/config_node.h"
#include "core/engine/engine_memory.h"
#include "core/model/device_spec.h"
#include "core/model/dtype.h"
#include "core/model/model_spec.h"

namespace kvsim {

struct Deployment {
  std::string source;
  ConfigNode model;   // scalar (preset name or resolved path) or inline map
  ConfigNode device;  // likewise
  uint32_t tp = 1;
  DType weight_dtype = DType::kFp16;
  DType kv_dtype = DType::kFp16;
  uint32_t block_size = 0;
  EngineQuery engine;  // with total_memory_bytes and measured_set_aside_bytes
  ConfigNode logged;   // null or a map of the log's figures
};

StatusOr<Deployment> load_deployment(const std::string& path);
// `base_dir`: the folder relative model/device paths are resolved against ("" = as given).
StatusOr<Deployment> deployment_from_config(const ConfigNode& tree, const std::string& base_dir);
std::string deployment_yaml(const Deployment& deployment);

StatusOr<ModelSpec> deployment_model(const Deployment& deployment);
StatusOr<DeviceSpec> deployment_device(const Deployment& deployment);

}  // namespace kvsim
