#include "core/engine/calibration_setup.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/config/presets.h"
#include "core/model/device_config.h"
#include "core/model/hf_config.h"
#include "core/model/load_spec.h"
#include "core/model/model_config.h"

namespace kvsim {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The log's model as a kvsim preset: its last path component, lower-cased, if a preset has
// that name.
std::optional<std::string> preset_for(const std::string& logged) {
  std::string name = logged;
  while (!name.empty() && name.back() == '/') name.pop_back();
  name = lower(
      name.substr(name.find_last_of('/') == std::string::npos ? 0 : name.find_last_of('/') + 1));
  for (const std::string& preset : preset_names(PresetKind::kModel)) {
    if (preset == name) return preset;
  }
  return std::nullopt;
}

// A preset by name stays a name in a deployment; a file is inlined so the deployment
// stands alone: a model or device YAML as its map, a Hugging Face config.json as the model map
// the importer makes of it (what `kvsim model import` prints), which loads back to the same
// ModelSpec (the raw config.json is not a kvsim model map).
StatusOr<ConfigNode> reference_node(PresetKind kind, const std::string& name_or_path) {
  if (!looks_like_path(name_or_path)) return ConfigNode::scalar(name_or_path);
  if (kind == PresetKind::kModel && is_hf_config_path(name_or_path)) {
    KVSIM_ASSIGN_OR_RETURN(const HfImport imported,
                           import_hf_config_file(name_or_path, preset_stem(name_or_path)));
    return model_to_config(imported.model, imported.description);
  }
  return load_preset_node(kind, name_or_path);
}

// The part of a model's name or path that names the model: the last path component, or in a
// Hugging Face hub cache path (".../models--Qwen--Qwen3-8B/snapshots/<commit>", where the last
// component is a commit hash) the repository folder's; without the owner either way.
std::string_view model_name_component(std::string_view name) {
  if (const size_t hub = name.find("models--"); hub != std::string_view::npos) {
    name.remove_prefix(hub + 8);
    name = name.substr(0, name.find('/'));
    if (const size_t owner = name.rfind("--"); owner != std::string_view::npos) {
      name.remove_prefix(owner + 2);
    }
    return name;
  }
  while (!name.empty() && name.back() == '/') name.remove_suffix(1);
  if (const size_t slash = name.find_last_of('/'); slash != std::string_view::npos) {
    name.remove_prefix(slash + 1);
  }
  if (const size_t owner = name.find("__"); owner != std::string_view::npos) {
    name.remove_prefix(owner + 2);  // an imported config's "owner__name" stem
  }
  return name;
}

// The words of a model's name (same_model_names): runs of letters or of digits in
// model_name_component, lower-cased, letters after digits kept with them ("8b").
std::vector<std::string> model_name_words(std::string_view full_name) {
  const std::string_view name = model_name_component(full_name);
  std::vector<std::string> words(1);
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u)) {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    if (std::isdigit(u) && !words.back().empty() && std::isalpha(words.back().front())) {
      words.emplace_back();  // "llama3" -> "llama", "3"
    }
    words.back() += static_cast<char>(std::tolower(u));
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

// `needle` appears in a row in `haystack`.
bool contains_run(const std::vector<std::string>& haystack,
                  const std::vector<std::string>& needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end()) !=
         haystack.end();
}

// What to say first when the log runs another model than --model (empty: the same, or no name
// to compare). The model's own name and the flag's file stem both count as the given name.
std::string model_mismatch(const StartupLog& log, const std::string& flag, const ModelSpec& model) {
  if (log.model.empty() || flag.empty()) return "";
  if (same_model_names(log.model, model.name) || same_model_names(log.model, preset_stem(flag))) {
    return "";
  }
  return "the log runs the model '" + log.model + "', not --model " + model.name +
         ": kvsim's figures are " + model.name +
         "'s and cannot match the log's; give the log's model as --model";
}

StatusOr<ModelSpec> resolve_model(const StartupLog& log, const CalibrationFlags& flags,
                                  CalibrationSetup* out) {
  std::string name = flags.model;
  if (name.empty()) {
    const auto preset = preset_for(log.model);
    if (!preset) {
      return Status::invalid_argument(
          log.model.empty()
              ? "the log does not name the model: give --model (a preset or a model YAML file)"
              : "the log names the model '" + log.model +
                    "', which is not a kvsim preset: give --model (a preset or a model YAML "
                    "file with its config.json figures)");
    }
    name = *preset;
  }
  KVSIM_ASSIGN_OR_RETURN(out->model_node, reference_node(PresetKind::kModel, name));
  KVSIM_ASSIGN_OR_RETURN(ModelSpec model, load_model(name));
  out->model_mismatch = model_mismatch(log, flags.model, model);
  return model;
}

// The weight dtype a log implies: its quantization method, the model's name, its dtype.
std::optional<DType> logged_weight_dtype(const StartupLog& log) {
  const std::string method = lower(log.quantization);
  const std::string model = lower(log.model);
  const auto has = [](const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
  };
  if (has(method, "fp8") || has(model, "-fp8")) return DType::kFp8;
  if (has(method, "awq") || has(method, "gptq") || has(model, "-awq") || has(model, "gptq") ||
      has(model, "int4"))
    return DType::kInt4;
  if (has(method, "w8a8") || has(model, "w8a8") || has(model, "int8")) return DType::kInt8;
  if (log.dtype == "bfloat16") return DType::kBf16;
  if (log.dtype == "float16" || log.dtype == "half") return DType::kFp16;
  return std::nullopt;
}

template <typename T>
T pick(const std::optional<LoggedValue>& logged, const std::optional<T>& flag, T fallback,
       const std::string& what, std::vector<std::string>* assumed) {
  if (logged) {
    if (flag && std::fabs(static_cast<double>(*flag) - logged->value) > 1e-9) {
      assumed->push_back(what + ": the log's value (line " + std::to_string(logged->line) +
                         ") wins over the flag");
    }
    return static_cast<T>(logged->value);
  }
  if (flag) return *flag;
  assumed->push_back(what + " not in the log: assumed " + std::to_string(fallback));
  return fallback;
}

// A batch setting from the log or the flag (0: neither, the engine's default).
uint32_t pick_setting(const std::optional<LoggedValue>& logged, uint32_t flag,
                      const std::string& what, std::vector<std::string>* assumed) {
  if (!logged && flag == 0) return 0;
  return pick<uint32_t>(logged, flag > 0 ? std::optional<uint32_t>(flag) : std::nullopt, 0, what,
                        assumed);
}

void resolve_engine(const StartupLog& log, const CalibrationFlags& flags, CalibrationSetup* out) {
  const EngineQuery& f = flags.engine;
  EngineQuery& e = out->engine;
  e = f;  // the options as given; what the log states overrides them
  e.kind = log.engine.value_or(f.kind);
  if (log.engine && flags.engine_named && f.kind != *log.engine) {
    out->assumed.push_back("engine: the log's (" + std::string(engine_kind_name(*log.engine)) +
                           ") wins over --engine");
  }
  if (log.version) e.version = log.version;
  if (!e.version && log.format_version) {
    e.version = log.format_version;
    out->assumed.push_back("engine version not in the log: assumed " +
                           engine_version_name(*e.version) +
                           ", the oldest that prints its lines (give --engine-version)");
  }
  if (!e.version) {
    e.version = newest_engine_version(e.kind);
    out->assumed.push_back("engine version not in the log: assumed " +
                           engine_version_name(*e.version) + " (give --engine-version)");
  }
  if (log.memory_utilization) {
    e.memory_utilization = log.memory_utilization->value;
  } else if (!f.memory_utilization) {
    out->assumed.push_back("memory utilization not in the log: the engine's default");
  }
  std::optional<uint64_t> flag_len =
      f.max_model_len > 0 ? std::optional<uint64_t>(f.max_model_len) : std::nullopt;
  if (!log.max_model_len && !flag_len && log.num_blocks && log.max_concurrency &&
      log.max_concurrency->value > 0) {
    // V0 prints concurrency = blocks x block size / max_model_len.
    const uint32_t block = flags.block_size.value_or(out->device.default_block_size);
    flag_len = static_cast<uint64_t>(
        std::llround(log.num_blocks->value * block / log.max_concurrency->value));
    out->assumed.push_back("max_model_len from blocks x block size / concurrency: " +
                           std::to_string(*flag_len));
  }
  e.max_model_len = pick<uint64_t>(log.max_model_len, flag_len, out->model.max_position_embeddings,
                                   "max_model_len", &out->assumed);
  e.max_num_batched_tokens = pick_setting(log.max_num_batched_tokens, f.max_num_batched_tokens,
                                          "max_num_batched_tokens", &out->assumed);
  e.max_num_seqs = pick_setting(log.max_num_seqs, f.max_num_seqs, "max_num_seqs", &out->assumed);
  if (log.enforce_eager) e.enforce_eager = log.enforce_eager->value != 0;
  if (log.warm_compile_cache) e.warm_compile_cache = log.warm_compile_cache->value != 0;
  if (log.total_bytes)
    e.total_memory_bytes = static_cast<uint64_t>(std::llround(log.total_bytes->value));
  // What the device held at the engine's start snapshot: total - free (other processes', and
  // what the runtime had taken). The engines' rules decide what it costs (engine_memory.h).
  if (log.free_at_start_bytes && log.total_bytes &&
      log.total_bytes->value > log.free_at_start_bytes->value) {
    const auto used = static_cast<uint64_t>(
        std::llround(log.total_bytes->value - log.free_at_start_bytes->value));
    if (f.device_used_bytes > 0 && f.device_used_bytes != used) {
      out->assumed.push_back("memory in use at start: the log's (line " +
                             std::to_string(log.free_at_start_bytes->line) +
                             ") wins over --device-used-bytes");
    }
    e.device_used_bytes = used;
  }
}

}  // namespace

bool same_model_names(std::string_view a, std::string_view b) {
  const std::vector<std::string> words_a = model_name_words(a);
  const std::vector<std::string> words_b = model_name_words(b);
  if (words_a.empty() || words_b.empty()) return true;  // nothing to tell them apart by
  return contains_run(words_a, words_b) || contains_run(words_b, words_a);
}

StatusOr<CalibrationSetup> resolve_calibration_setup(const StartupLog& log,
                                                     const CalibrationFlags& flags) {
  CalibrationSetup out;
  KVSIM_ASSIGN_OR_RETURN(out.model, resolve_model(log, flags, &out));
  if (flags.device.empty()) {
    return Status::invalid_argument(
        "the log does not name a kvsim device: give --device (a preset or a device YAML file)");
  }
  KVSIM_ASSIGN_OR_RETURN(out.device_node, reference_node(PresetKind::kDevice, flags.device));
  KVSIM_ASSIGN_OR_RETURN(out.device, load_device(flags.device));
  out.capacity.tp = pick<uint32_t>(log.tp, flags.tp, 1, "TP", &out.assumed);
  out.capacity.weight_dtype =
      flags.weight_dtype.value_or(logged_weight_dtype(log).value_or(DType::kFp16));
  const DType model_dtype = log.dtype == "bfloat16" ? DType::kBf16 : DType::kFp16;
  out.capacity.kv.dtype = flags.kv_dtype.value_or(
      supports_kv_dtype(out.device, model_dtype) ? model_dtype : DType::kFp16);
  out.capacity.block_size = flags.block_size.value_or(0);
  resolve_engine(log, flags, &out);
  return out;
}

}  // namespace kvsim
