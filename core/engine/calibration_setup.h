// CalibrationSetup: the model, device, TP, dtypes and engine settings a start-up log was
// produced with — what the log says, the rest from the caller's flags, and what neither gives
// named in the error (the model and the device; a log rarely names a kvsim preset).
//
//   figure            log                              flag             fallback
//   engine, version   the lines it prints (its format)  --engine(-version) vllm, newest
//   model             model='...' / vllm serve NAME     --model          error
//   device            (never a kvsim preset)            --device         error
//   TP                tensor_parallel_size, --tp        --tp             1 (said so)
//   utilization       gpu_memory_utilization, ...       --mem-fraction   engine default
//   total memory      total_gpu_memory, Free memory ...  -               the device's
//   max model len     max_seq_len, Maximum concurrency  --max-model-len  model's positions
//   weight dtype      quantization / dtype / the name    --weight-dtype   fp16
// A flag that contradicts the log loses, with a note.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/config/config_node.h"
#include "core/engine/capacity.h"
#include "core/engine/engine_memory.h"
#include "core/engine/startup_log.h"
#include "core/model/device_spec.h"
#include "core/model/model_spec.h"

namespace kvsim {

struct CalibrationFlags {
  std::string model;   // preset name or file; empty: the log's, if it is a preset
  std::string device;  // preset name or file
  std::optional<uint32_t> tp;
  std::optional<uint32_t> block_size;
  std::optional<DType> weight_dtype;
  std::optional<DType> kv_dtype;
  // The engine options as given (kvsim capacity's); what the log states overrides them.
  EngineQuery engine;
  bool engine_named = false;  // --engine was given (else the log's, or vllm)
};

struct CalibrationSetup {
  ModelSpec model;
  DeviceSpec device;
  ConfigNode model_node;  // what a deployment file names it by (preset name or inline map)
  ConfigNode device_node;
  CapacityQuery capacity;            // TP, dtypes, block size (0: the engine's)
  EngineQuery engine;                // engine, version, utilization, lengths, total memory
  std::vector<std::string> assumed;  // settings neither the log nor a flag gave
};

StatusOr<CalibrationSetup> resolve_calibration_setup(const StartupLog& log,
                                                     const CalibrationFlags& flags);

}  // namespace kvsim
