#include "simulator/cost/calibration_file.h"

#include <cstdio>

#include "core/config/config_reader.h"
#include "core/config/yaml_io.h"

namespace kvsim::sim {
namespace {

Status flatten(const ConfigNode& node, const std::string& prefix, const std::string& what,
               std::vector<FitOverride>* out) {
  for (const auto& [key, value] : node.entries()) {
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (value.is_map()) {
      KVSIM_RETURN_IF_ERROR(flatten(value, name, what, out));
      continue;
    }
    double number = 0;
    if (!value.is_scalar() || !parse_double(value.text(), &number).is_ok()) {
      return error_at(value.mark(), what + "." + name + ": expected a number");
    }
    out->push_back({name, number, value.mark()});
  }
  return Status::ok();
}

}  // namespace

Status read_fit_overrides(const ConfigNode& node, const std::string& what,
                          std::vector<FitOverride>* out) {
  if (!node.is_map()) return error_at(node.mark(), what + ": expected a map of parameters");
  return flatten(node, "", what, out);
}

Status apply_fit_overrides(const std::vector<FitOverride>& overrides, OperatorFit* fit) {
  for (const FitOverride& o : overrides) {
    const Status set = set_fit_parameter(fit, o.name, o.value);
    if (!set.is_ok()) return error_at(o.mark, set.message());
  }
  return Status::ok();
}

StatusOr<CalibrationFile> read_calibration_file(const std::string& path) {
  KVSIM_ASSIGN_OR_RETURN(const ConfigNode root, read_yaml_file(path));
  CalibrationFile file;
  ConfigReader r(root, "calibration");
  uint64_t version = 1;
  r.optional("kvsim_calibration", &version, uint64_t{1}, uint64_t{1});
  r.optional("base", &file.base);
  r.optional("model", &file.model);
  r.optional("device", &file.device);
  r.optional("tp", &file.tp, 1u, 4096u);
  r.optional("rows", &file.rows, uint64_t{0}, UINT64_MAX);
  if (root.find("frontend_s") != nullptr) {
    double frontend_s = 0;
    r.optional("frontend_s", &frontend_s, 0.0, 60.0);
    file.frontend_s = frontend_s;
  }
  const ConfigNode* parameters = r.child("parameters");
  KVSIM_RETURN_IF_ERROR(r.finish());
  if (parameters == nullptr) return error_at(root.mark(), "calibration: missing 'parameters'");
  KVSIM_RETURN_IF_ERROR(read_fit_overrides(*parameters, "parameters", &file.parameters));
  if (!file.base.empty()) {
    const auto base = find_operator_fit(file.base);
    if (!base.is_ok()) return error_at(root.find("base")->mark(), base.status().message());
  }
  return file;
}

std::string calibration_yaml(const CalibrationFile& header, const OperatorFit& fit,
                             const std::vector<std::string>& fitted,
                             const std::vector<std::string>& comment) {
  std::string out;
  for (const std::string& line : comment) out += "# " + line + "\n";
  out += "kvsim_calibration: 1\n";
  out += "base: " + header.base + "\n";
  if (!header.model.empty()) out += "model: " + header.model + "\n";
  if (!header.device.empty()) out += "device: " + header.device + "\n";
  out += "tp: " + std::to_string(header.tp) + "\n";
  out += "rows: " + std::to_string(header.rows) + "\n";
  if (header.frontend_s) {
    char value[64];
    std::snprintf(value, sizeof value, "%.9g", *header.frontend_s);
    out += std::string("frontend_s: ") + value + "\n";
  }
  out += fitted.empty() ? "parameters: {}\n" : "parameters:\n";
  for (const std::string& name : fitted) {
    char value[64];
    std::snprintf(value, sizeof value, "%.9g", get_fit_parameter(fit, name));
    out += "  " + name + ": " + value + "\n";
  }
  return out;
}

}  // namespace kvsim::sim
