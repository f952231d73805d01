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
//   in use at start   Free memory on device (F/T GiB)    --device-used-bytes  0
// A flag that contradicts the log loses, with a note. A --model that is not the model the log
// names (same_model_names) is said first (model_mismatch): the figures then compare two
// models, and a pool that does not fit is the model's fault, not the utilization's.
#pragma once

#include <optional>
#include <string>
#include <string_view>
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
  // The log names another model than --model (what to say before anything else); empty: the
  // names agree, the log names none, or the model came from the log.
  std::string model_mismatch;
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

// Whether two names of a model (a Hugging Face id, a local path, a kvsim preset, a model file
// or an imported config's "owner__name" stem) name one model: the words of one's last path
// component (a hub cache path's models--owner--name folder) appear in a row among the other's.
// Words are runs of letters or of digits, a size's unit kept with its number ("8b", "a22b" -> "a",
// "22b"), case aside. An engine names a model by family, version and size, with an owner before
// (Meta-) and a fine-tune, date or quantization after (-Instruct, -2507, -FP8, -AWQ), none of which
// changes the KV cache's shape (quantized weights are --weight-dtype's business); kvsim's names are
// the same words.
bool same_model_names(std::string_view a, std::string_view b);

}  // namespace kvsim
