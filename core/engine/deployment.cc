#include "core/engine/deployment.h"

#include <filesystem>

#include "core/config/config_reader.h"
#include "core/config/presets.h"
#include "core/config/yaml_io.h"
#include "core/engine/engine_config.h"
#include "core/model/device_config.h"
#include "core/model/load_spec.h"

namespace kvsim {
namespace {

Status parse_dtype_field(std::string_view text, DType* out) {
  KVSIM_ASSIGN_OR_RETURN(*out, parse_dtype(text));
  return Status::ok();
}

StatusOr<ConfigNode> read_ref(const ConfigReader& r, const ConfigNode* node, const char* key,
                              const std::string& base_dir) {
  if (node == nullptr)
    return error_at(r.node().mark(), std::string("deployment: missing '") + key + "'");
  if (node->is_map()) return *node;
  if (!node->is_scalar()) {
    return error_at(node->mark(), std::string(key) + ": expected a preset name, a path or a map");
  }
  std::string text = node->text();
  if (looks_like_path(text) && !base_dir.empty() && !std::filesystem::path(text).is_absolute()) {
    text = (std::filesystem::path(base_dir) / text).lexically_normal().string();
  }
  return ConfigNode::scalar(text, node->mark());
}

}  // namespace

StatusOr<Deployment> deployment_from_config(const ConfigNode& tree, const std::string& base_dir) {
  Deployment d;
  ConfigReader r(tree, "deployment");
  r.optional("source", &d.source);
  r.allow("model");
  r.allow("device");
  r.optional("tp", &d.tp, 1u, 4096u);
  r.optional_with("weight_dtype", &d.weight_dtype, parse_dtype_field);
  r.optional_with("kv_dtype", &d.kv_dtype, parse_dtype_field);
  r.optional("block_size", &d.block_size, 0u, 1u << 20);
  uint64_t total = 0;
  r.optional("total_memory_bytes", &total, uint64_t{0}, uint64_t{1} << 60);
  uint64_t set_aside = 0;
  r.required("set_aside_bytes", &set_aside, uint64_t{0}, uint64_t{1} << 60);
  r.allow("engine");
  r.allow("logged");
  if (!r.has("engine") && r.status().is_ok()) r.fail("deployment: missing 'engine'");
  KVSIM_RETURN_IF_ERROR(r.finish());
  KVSIM_ASSIGN_OR_RETURN(d.model, read_ref(r, tree.find("model"), "model", base_dir));
  KVSIM_ASSIGN_OR_RETURN(d.device, read_ref(r, tree.find("device"), "device", base_dir));
  KVSIM_RETURN_IF_ERROR(
      read_engine_config(*tree.find("engine"), EngineConfigKeys::kDeployment, &d.engine));
  if (total > 0) d.engine.total_memory_bytes = total;
  d.engine.measured_set_aside_bytes = set_aside;
  if (const ConfigNode* logged = tree.find("logged")) d.logged = *logged;
  return d;
}

StatusOr<Deployment> load_deployment(const std::string& path) {
  KVSIM_ASSIGN_OR_RETURN(ConfigNode tree, read_yaml_file(path));
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return deployment_from_config(tree, base_dir);
}

std::string deployment_yaml(const Deployment& d) {
  ConfigNode tree = ConfigNode::map();
  tree.set("source", ConfigNode::scalar(d.source));
  tree.set("model", d.model);
  tree.set("device", d.device);
  tree.set("tp", ConfigNode::scalar(std::to_string(d.tp)));
  tree.set("weight_dtype", ConfigNode::scalar(std::string(dtype_name(d.weight_dtype))));
  tree.set("kv_dtype", ConfigNode::scalar(std::string(dtype_name(d.kv_dtype))));
  tree.set("block_size", ConfigNode::scalar(std::to_string(d.block_size)));
  tree.set("engine", engine_config_node(d.engine));
  if (d.engine.total_memory_bytes) {
    tree.set("total_memory_bytes",
             ConfigNode::scalar(std::to_string(*d.engine.total_memory_bytes)));
  }
  tree.set("set_aside_bytes",
           ConfigNode::scalar(std::to_string(d.engine.measured_set_aside_bytes.value_or(0))));
  if (d.logged.is_map()) tree.set("logged", d.logged);
  return "# kvsim deployment (core/engine/deployment.h): the engine's measured set-aside\n"
         "# reproduces the logged KV cache; kvsim capacity --deployment FILE, or deployment:\n"
         "# FILE in a scenario.\n" +
         to_yaml(tree);
}

StatusOr<ModelSpec> deployment_model(const Deployment& d) {
  if (d.model.is_map()) return model_from_config(d.model, "deployment-model");
  return load_model(d.model.text());
}

StatusOr<DeviceSpec> deployment_device(const Deployment& d) {
  if (d.device.is_map()) return device_from_config(d.device, "deployment-device");
  return load_device(d.device.text());
}

}  // namespace kvsim
