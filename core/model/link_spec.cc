#include "core/model/link_spec.h"

#include "core/config/config_reader.h"
#include "core/config/presets.h"

namespace kvsim {
namespace {

constexpr double kMaxLinkGbps = 1e7;  // 10 PB/s: rejects typos, admits every real link
constexpr double kMaxLatencyS = 10.0;

}  // namespace

StatusOr<LinkSpec> link_from_config(const ConfigNode& node, const std::string& default_name) {
  LinkSpec spec;
  spec.name = default_name;
  ConfigReader r(node, "link preset");
  r.optional("name", &spec.name);
  r.optional("description", &spec.description);
  r.required("source", &spec.source);
  r.required("bandwidth_gbps", &spec.bandwidth_gbps, 1e-6, kMaxLinkGbps);
  r.required("latency_s", &spec.latency_s, 0.0, kMaxLatencyS);
  KVSIM_RETURN_IF_ERROR(r.finish());
  return spec;
}

StatusOr<LinkSpec> load_link(std::string_view name_or_path) {
  KVSIM_ASSIGN_OR_RETURN(ConfigNode node, load_preset_node(PresetKind::kLink, name_or_path));
  return link_from_config(node, preset_stem(name_or_path));
}

}  // namespace kvsim
