#include "core/model/hf_config.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/base/json_text.h"
#include "core/base/text_format.h"
#include "core/config/yaml_io.h"
#include "core/model/hf_architectures.h"
#include "core/model/model_config.h"

namespace kvsim {
namespace {

using nlohmann::json;

StatusOr<json> parse_json(std::string_view text, const std::string& file) {
  const std::string clean = without_non_finite(text);
  try {
    json root = json::parse(clean);
    if (!root.is_object()) {
      return Status::parse_error(file + ": expected a JSON object (a transformers config.json)");
    }
    return root;
  } catch (const json::parse_error& error) {
    std::string what = error.what();
    const size_t colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return Status::parse_error(text_position(clean, file, error.byte) + ": invalid JSON: " + what);
  } catch (const std::exception& error) {
    return Status::parse_error(file + ": invalid JSON: " + error.what());
  }
}

std::vector<const HfArchitecture*> all_architectures() {
  std::vector<const HfArchitecture*> out;
  for (const HfArchitecture& a : hf_decoder_architectures()) out.push_back(&a);
  for (const HfArchitecture& a : hf_hybrid_architectures()) out.push_back(&a);
  return out;
}

// The architecture by model_type, else by the architectures list.
StatusOr<const HfArchitecture*> find_architecture(const json& root, const std::string& file) {
  const auto type = root.find("model_type");
  const auto classes = root.find("architectures");
  std::string asked;
  for (const HfArchitecture* a : all_architectures()) {
    if (type != root.end() && type->is_string() && *type == a->model_type) return a;
  }
  if (classes != root.end() && classes->is_array()) {
    for (const json& name : *classes) {
      for (const HfArchitecture* a : all_architectures()) {
        if (name.is_string() && name == a->class_name) return a;
      }
      if (name.is_string() && asked.empty()) asked = name.get<std::string>();
    }
  }
  if (type != root.end() && type->is_string()) {
    asked +=
        (asked.empty() ? "" : " ") + std::string("(model_type ") + type->get<std::string>() + ")";
  }
  std::string valid;
  for (const std::string& name : supported_hf_architectures()) {
    valid += (valid.empty() ? "" : ", ") + name;
  }
  return Status::invalid_argument(
      file + ": unsupported architecture " +
      (asked.empty() ? std::string("(no model_type or architectures)") : "'" + asked + "'") +
      "; kvsim imports: " + valid);
}

std::string describe(const HfImport& in) {
  const ModelSpec& m = in.model;
  std::string text = fmt::format("{}: {} layers", in.architecture, m.num_layers);
  if (!m.layer_groups.empty()) text += fmt::format(" ({})", describe_layer_groups(m));
  text += fmt::format(", {} {}/{} heads", attention_kind_name(m.attention), m.num_attention_heads,
                      m.num_kv_heads);
  if (m.sliding_window_tokens > 0) {
    text += fmt::format(", sliding window {}", m.sliding_window_tokens);
  }
  if (m.num_experts > 0) {
    text += fmt::format(", {} experts top-{}", m.num_experts, m.num_experts_per_token);
  }
  text += ", " + format_fixed(static_cast<double>(m.num_params) / 1e9, 2) + "B params";
  if (m.num_active_params != m.num_params) {
    text += " (" + format_fixed(static_cast<double>(m.num_active_params) / 1e9, 2) + "B active)";
  }
  if (!m.weight_quantization.method.empty())
    text += ", " + m.weight_quantization.method + " weights";
  return text;
}

}  // namespace

std::vector<std::string> supported_hf_architectures() {
  std::vector<std::string> out;
  for (const HfArchitecture* a : all_architectures()) {
    out.push_back(std::string(a->class_name) + " (" + std::string(a->model_type) + ")");
  }
  return out;
}

StatusOr<HfImport> import_hf_config(std::string_view json_text, const std::string& file,
                                    const std::string& name) {
  KVSIM_ASSIGN_OR_RETURN(json root, parse_json(json_text, file));
  KVSIM_ASSIGN_OR_RETURN(const HfArchitecture* architecture, find_architecture(root, file));
  HfImport out;
  out.architecture = std::string(architecture->class_name);
  out.model_type = std::string(architecture->model_type);
  out.model.name = name;
  out.model.source = "Hugging Face config.json " + file + " (imported by kvsim)";
  out.model.checkpoint_dtype = hf_checkpoint_dtype(root);
  HfFields fields(root, file);
  architecture->read(fields, &out);
  KVSIM_RETURN_IF_ERROR(fields.status());
  out.model.num_params = out.params.total();
  out.model.num_active_params = out.params.active();
  KVSIM_RETURN_IF_ERROR(
      read_hf_quantization(root, file, out.params, &out.model.weight_quantization));
  Status valid = validate_model(out.model);
  if (!valid.is_ok()) return valid.with_context(file);
  out.description = describe(out);
  return out;
}

std::string imported_model_yaml(const HfImport& in, const std::string& config_path) {
  const ParamCount& p = in.params;
  std::string text = "# Imported by `kvsim model import " + config_path +
                     "` (core/model/hf_config.h); regenerate rather than edit.\n";
  text += "# " + in.architecture + " (model_type " + in.model_type +
          "): " + format_count(p.total()) + " parameters, " + format_count(p.active()) +
          " active\n";
  text += "#   embedding " + format_count(p.embedding) + ", lm_head " + format_count(p.lm_head) +
          ", attention " + format_count(p.attention_linear) + ", mlp " +
          format_count(p.mlp_linear) + ", experts " + format_count(p.expert_linear) + ", mixers " +
          format_count(p.mixer_linear) + ", other " + format_count(p.other) + ", vision " +
          format_count(p.vision) + "\n";
  return text + to_yaml(model_to_config(in.model, in.description));
}

StatusOr<HfImport> import_hf_config_file(const std::string& path, const std::string& name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::not_found("cannot open '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::io_error("cannot read '" + path + "'");
  return import_hf_config(text.str(), path,
                          name.empty() ? std::filesystem::path(path).stem().string() : name);
}

}  // namespace kvsim
