#include "simulator/scenario/scenario.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/base/data_dir.h"
#include "core/base/enum_names.h"
#include "core/cache/block_id.h"
#include "core/config/config_reader.h"
#include "core/config/presets.h"
#include "core/engine/deployment.h"
#include "core/engine/engine_config.h"
#include "simulator/cost/calibration_file.h"
#include "simulator/cost/operator_fits.h"

namespace kvsim::sim {
namespace {

constexpr uint32_t kMaxTokens = 1u << 30;

// A relative path of a scenario file is relative to the file's folder; data: paths go to the
// shared data folder.
std::string resolve_path(const std::string& path, const std::string& base_dir) {
  if (path.rfind(kDataPrefix, 0) == 0) return resolve_data_path(path);
  if (path.empty() || base_dir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(base_dir) / path).lexically_normal().string();
}

Status read_cache(const ConfigNode& node, CacheSection* cache) {
  ConfigReader r(node, "cache");
  r.optional("block_size", &cache->block_size, 1u, 1u << 20);
  r.optional_with("dtype", &cache->dtype, parse_into<parse_dtype>);
  r.optional("quant_group", &cache->quant_group, 0u, 1u << 20);
  r.optional("mem_fraction", &cache->mem_fraction, 1e-6, 1.0);
  r.optional("num_blocks_override", &cache->num_blocks_override, uint64_t{0},
             uint64_t{kMaxNumBlocks});
  r.optional("prefix_caching", &cache->prefix_caching);
  r.optional_with("eviction", &cache->eviction, parse_into<parse_eviction>);
  r.optional_with("retention", &cache->retention, parse_into<parse_retention>);
  r.optional("host_swap_gib", &cache->host_swap_gib, 0.0, 1e6);
  return r.finish();
}

Status read_scheduler(const ConfigNode& node, SchedulerSection* scheduler) {
  ConfigReader r(node, "scheduler");
  r.optional_with("policy", &scheduler->policy, parse_into<parse_scheduler_policy>);
  r.optional("max_model_len", &scheduler->max_model_len, uint64_t{1}, uint64_t{kMaxTokens});
  r.optional("max_num_seqs", &scheduler->max_num_seqs, 1u, 1u << 20);
  r.optional("max_num_batched_tokens", &scheduler->max_num_batched_tokens, 1u, kMaxTokens);
  r.optional("chunked_prefill", &scheduler->chunked_prefill);
  r.optional_with("preemption", &scheduler->preemption, parse_into<parse_preemption_mode>);
  r.optional("reserve_full_prompt", &scheduler->reserve_full_prompt);
  KVSIM_RETURN_IF_ERROR(r.finish());
  // vllm-v0 never chunks a prompt and sarathi always does: the policy sets chunked_prefill,
  // and a scenario that says otherwise is an error.
  if (scheduler->policy == SchedulerPolicy::kVllm) return Status::ok();
  const bool chunked = scheduler->policy == SchedulerPolicy::kSarathi;
  if (const ConfigNode* given = node.find("chunked_prefill");
      given != nullptr && scheduler->chunked_prefill != chunked) {
    return error_at(given->mark(),
                    std::string("scheduler: policy ") +
                        std::string(scheduler_policy_name(scheduler->policy)) +
                        (chunked ? " always chunks prompts" : " never chunks prompts") +
                        " (chunked_prefill must be " + (chunked ? "true)" : "false)"));
  }
  scheduler->chunked_prefill = chunked;
  return Status::ok();
}

constexpr uint64_t kMaxSyntheticRequests = uint64_t{1} << 40;

// A length distribution: a number (fixed) or a map {dist: ..., ...}.
Status read_length(const ConfigNode& node, const std::string& what, const std::string& base_dir,
                   LengthConfig* out) {
  if (node.is_scalar()) {
    uint64_t value = 0;
    const Status parsed = parse_uint64(node.text(), &value);
    if (!parsed.is_ok() || value == 0 || value > kMaxTokens) {
      return error_at(node.mark(), what + ": expected a token count >= 1 or a map with 'dist'");
    }
    out->kind = LengthKind::kFixed;
    out->value = static_cast<uint32_t>(value);
    return Status::ok();
  }
  ConfigReader r(node, what);
  r.required_with("dist", &out->kind, parse_into<parse_length_kind>);
  r.optional("value", &out->value, 1u, kMaxTokens);
  r.optional("min", &out->min, 1u, kMaxTokens);
  r.optional("max", &out->max, 1u, kMaxTokens);
  r.optional("mean", &out->mean, 1.0, 1e9);
  r.optional("sigma", &out->sigma, 0.0, 10.0);
  r.optional("trace", &out->trace);
  r.optional_with("trace_format", &out->trace_format, parse_into<parse_trace_format>);
  KVSIM_RETURN_IF_ERROR(r.finish());
  out->trace = resolve_path(out->trace, base_dir);
  const Status valid = validate_length_config(*out, what);
  return valid.is_ok() ? valid : error_at(node.mark(), valid.message());
}

// workload.synthetic.stages: a list of {rate, duration_s}.
Status read_stages(const ConfigNode& node, std::vector<ArrivalStage>* out) {
  if (!node.is_sequence() || node.items().empty()) {
    return error_at(node.mark(),
                    "workload.synthetic.stages: expected a list of {rate, duration_s}");
  }
  out->clear();
  for (size_t i = 0; i < node.items().size(); ++i) {
    ConfigReader r(node.items()[i], "workload.synthetic.stages[" + std::to_string(i) + "]");
    ArrivalStage stage;
    r.required("rate", &stage.rate_per_s, 1e-9, 1e9);
    r.required("duration_s", &stage.duration_s, 1e-9, 1e9);
    KVSIM_RETURN_IF_ERROR(r.finish());
    out->push_back(stage);
  }
  return Status::ok();
}

Status read_synthetic(const ConfigNode& node, const std::string& base_dir, SyntheticConfig* out) {
  ConfigReader r(node, "workload.synthetic");
  // Staged arrivals end with their last stage unless num_requests caps them.
  if (node.find("stages") != nullptr) out->num_requests = kMaxSyntheticRequests;
  r.optional("num_requests", &out->num_requests, uint64_t{1}, kMaxSyntheticRequests);
  r.optional_with("arrival", &out->arrival, parse_into<parse_arrival_process>);
  // A rate, unless the arrivals are a burst or in stages.
  if (node.find("stages") != nullptr || out->arrival == ArrivalProcess::kBurst) {
    r.optional("rate", &out->rate_per_s, 1e-9, 1e9);
  } else {
    r.required("rate", &out->rate_per_s, 1e-9, 1e9);
  }
  r.optional("cv", &out->cv, 1e-3, 1e3);
  r.optional("prompt_set", &out->prompt_set, uint64_t{0}, uint64_t{1} << 24);
  r.optional_with("prompt_order", &out->prompt_order, parse_into<parse_prompt_order>);
  if (const ConfigNode* stages = r.child("stages")) {
    KVSIM_RETURN_IF_ERROR(read_stages(*stages, &out->stages));
  }
  for (const char* key : {"prompt_tokens", "output_tokens"}) {
    const ConfigNode* child = r.child(key);
    if (child == nullptr) continue;
    LengthConfig* length =
        std::string_view(key) == "prompt_tokens" ? &out->prompt_tokens : &out->output_tokens;
    KVSIM_RETURN_IF_ERROR(
        read_length(*child, std::string("workload.synthetic.") + key, base_dir, length));
  }
  if (const ConfigNode* prefix = r.child("shared_prefix")) {
    ConfigReader p(*prefix, "workload.synthetic.shared_prefix");
    p.optional("groups", &out->shared_prefix.groups, 0u, 1u << 30);
    p.optional("tokens", &out->shared_prefix.tokens, 0u, kMaxTokens);
    p.optional("probability", &out->shared_prefix.probability, 0.0, 1.0);
    KVSIM_RETURN_IF_ERROR(p.finish());
  }
  KVSIM_RETURN_IF_ERROR(r.finish());
  const Status valid = validate_synthetic_config(*out);
  return valid.is_ok() ? valid : error_at(node.mark(), valid.message());
}

Status read_workload(const ConfigNode& node, const std::string& base_dir, WorkloadSection* out) {
  ConfigReader r(node, "workload");
  r.optional("trace", &out->trace);
  r.optional_with("trace_format", &out->trace_format, parse_into<parse_trace_format>);
  r.optional("skip_bad_rows", &out->skip_bad_rows);
  r.optional("max_requests", &out->max_requests, uint64_t{0}, uint64_t{1} << 40);
  r.optional("time_scale", &out->time_scale, 1e-9, 1e9);
  r.optional("rate", &out->rate, 0.0, 1e9);
  r.optional("prefix_tokens", &out->prefix_tokens, 0u, kMaxTokens);
  r.optional("max_concurrency", &out->max_concurrency, 0u, 1u << 24);
  const ConfigNode* synthetic = r.child("synthetic");
  KVSIM_RETURN_IF_ERROR(r.finish());
  if (!out->trace.empty() && synthetic != nullptr) {
    return error_at(synthetic->mark(), "workload: give either 'trace' or 'synthetic', not both");
  }
  if (out->trace.empty() && synthetic == nullptr) {
    return error_at(node.mark(), "workload: needs 'trace' (a file) or 'synthetic' (a generator)");
  }
  out->trace = resolve_path(out->trace, base_dir);
  if (synthetic == nullptr) return Status::ok();
  KVSIM_RETURN_IF_ERROR(read_synthetic(*synthetic, base_dir, &out->synthetic));
  if (out->rate > 0 && !has_single_rate(out->synthetic)) {
    return error_at(node.find("rate")->mark(),
                    "workload.rate: a burst or staged synthetic workload has no single rate to "
                    "override (set the stages' rates)");
  }
  return Status::ok();
}

// Whether the section sets one of the roofline's own constants.
bool has_roofline_constant(const ConfigNode& node) {
  for (const char* key : {"compute_efficiency", "bandwidth_efficiency", "interconnect_efficiency",
                          "iteration_overhead_s", "allreduce_latency_s"}) {
    if (node.find(key) != nullptr) return true;
  }
  return false;
}

Status read_cost_model(const ConfigNode& node, const std::string& base_dir, CostModelConfig* out) {
  ConfigReader r(node, "cost_model");
  r.optional_with("kind", &out->kind, parse_into<parse_cost_model_kind>);
  r.optional("compute_efficiency", &out->compute_efficiency, 1e-3, 1.0);
  r.optional("bandwidth_efficiency", &out->bandwidth_efficiency, 1e-3, 1.0);
  r.optional("interconnect_efficiency", &out->interconnect_efficiency, 1e-3, 1.0);
  r.optional("iteration_overhead_s", &out->iteration_overhead_s, 0.0, 10.0);
  r.optional("allreduce_latency_s", &out->allreduce_latency_s, 0.0, 1.0);
  r.optional("frontend_s", &out->frontend_s, 0.0, 60.0);
  r.optional("expert_imbalance", &out->expert_imbalance, 1.0, 100.0);
  r.optional("fit", &out->fit);
  r.optional_with("cuda_graphs", &out->cuda_graphs, parse_into<parse_cuda_graphs>);
  r.optional("calibration", &out->calibration);
  r.optional("profiles", &out->profiles);
  r.optional("topology", &out->topology);
  const ConfigNode* parameters = r.child("parameters");
  KVSIM_RETURN_IF_ERROR(r.finish());
  if (parameters != nullptr) {
    KVSIM_RETURN_IF_ERROR(
        read_fit_overrides(*parameters, "cost_model.parameters", &out->parameters));
  }
  if (!out->fit.empty()) {
    const auto fit = find_operator_fit(out->fit);
    if (!fit.is_ok()) return error_at(node.find("fit")->mark(), fit.status().message());
  }
  // Scenarios written when the roofline was the default keep their meaning without a kind: a
  // CSV calibration means a table, a roofline constant the roofline.
  const bool csv = out->calibration.size() > 4 &&
                   out->calibration.compare(out->calibration.size() - 4, 4, ".csv") == 0;
  if (node.find("kind") == nullptr && csv) out->kind = CostModelKind::kTable;
  if (node.find("kind") == nullptr && !csv && has_roofline_constant(node)) {
    out->kind = CostModelKind::kRoofline;
  }
  out->calibration = resolve_path(out->calibration, base_dir);
  out->profiles = resolve_path(out->profiles, base_dir);
  // A calibration that fitted the front end sets it where the section does not.
  if (!csv && !out->calibration.empty() && node.find("frontend_s") == nullptr) {
    auto file = read_calibration_file(out->calibration);
    if (!file.is_ok()) return error_at(node.find("calibration")->mark(), file.status().message());
    if (file->frontend_s) out->frontend_s = *file->frontend_s;
  }
  return Status::ok();
}

Status read_output(const ConfigNode& node, OutputSection* out) {
  ConfigReader r(node, "output");
  r.optional("dir", &out->dir);
  r.optional("requests_csv", &out->requests_csv);
  r.optional("timeseries", &out->timeseries);
  r.optional("timeseries_interval_s", &out->timeseries_interval_s, 1e-6, 1e9);
  r.optional("chrome_trace", &out->chrome_trace);
  return r.finish();
}

// A deployment file replaces model, device, num_devices, weight_dtype and engine (the scenario
// must not give them too); the scenario's cache dtype, block size and scheduler limits default
// to the file's.
Status apply_deployment(const ConfigNode& node, const ConfigNode& tree, const std::string& base_dir,
                        Scenario* s) {
  if (!node.is_scalar()) return error_at(node.mark(), "deployment: expected a file path");
  for (const char* key : {"model", "device", "num_devices", "weight_dtype", "engine"}) {
    if (const ConfigNode* given = tree.find(key); given != nullptr && !given->is_null()) {
      return error_at(given->mark(), std::string("scenario: '") + key +
                                         "' comes from the deployment file; give one or the other");
    }
  }
  s->deployment = resolve_path(node.text(), base_dir);
  auto deployment = load_deployment(s->deployment);
  if (!deployment.is_ok()) return error_at(node.mark(), deployment.status().message());
  s->model = deployment->model;
  s->device = deployment->device;
  s->num_devices = deployment->tp;
  s->weight_dtype = deployment->weight_dtype;
  s->engine = deployment->engine;
  if (tree.find_path("cache.dtype") == nullptr) s->cache.dtype = deployment->kv_dtype;
  if (tree.find_path("cache.block_size") == nullptr) s->cache.block_size = deployment->block_size;
  return Status::ok();
}

// The scenario's parallel: section (read_parallel_layout, scenario.h); a deployment's TP counts
// as a num_devices given.
Status read_parallel(const ConfigNode& node, const ConfigNode& tree, Scenario* s) {
  const ConfigNode* devices = tree.find("num_devices");
  const bool devices_given = (devices != nullptr && !devices->is_null()) || !s->deployment.empty();
  KVSIM_ASSIGN_OR_RETURN(s->parallel,
                         read_parallel_layout(node, "parallel", s->num_devices, devices_given));
  s->num_devices = s->parallel.tp;
  return Status::ok();
}

}  // namespace

StatusOr<ParallelLayout> read_parallel_layout(const ConfigNode& node, const std::string& what,
                                              uint32_t num_devices, bool devices_given) {
  ConfigReader r(node, what);
  ParallelLayout layout;
  layout.tp = num_devices;
  r.optional("tp", &layout.tp, 1u, 4096u);
  r.optional("dp", &layout.dp, 1u, 4096u);
  r.optional("ep", &layout.ep, 1u, 4096u);
  r.optional("pp", &layout.pp, 1u, 4096u);
  KVSIM_RETURN_IF_ERROR(r.finish());
  const ConfigNode* tp = node.find("tp");
  if (tp != nullptr && devices_given && layout.tp != num_devices) {
    return error_at(tp->mark(), fmt::format("{}.tp {} disagrees with num_devices {} (the TP "
                                            "shorthand); give one of them",
                                            what, layout.tp, num_devices));
  }
  if (layout.tp % layout.dp != 0 || layout.tp % layout.ep != 0) {
    const bool dp = layout.tp % layout.dp != 0;
    return error_at(node.find(dp ? "dp" : "ep")->mark(),
                    fmt::format("{}.{} {} must divide tp {}, the devices of the TP group", what,
                                dp ? "dp" : "ep", dp ? layout.dp : layout.ep, layout.tp));
  }
  return layout;
}

StatusOr<ConfigNode> read_preset_ref(const ConfigNode& node, const std::string& key,
                                     const std::string& base_dir) {
  if (node.is_map()) return node;
  if (!node.is_scalar()) {
    return error_at(node.mark(), key + ": expected a preset name, a file path or a map");
  }
  std::string text = node.text();
  if (looks_like_path(text)) text = resolve_path(text, base_dir);
  return ConfigNode::scalar(text, node.mark());
}

Status apply_override(ConfigNode* tree, std::string_view assignment) {
  const size_t equals = assignment.find('=');
  if (equals == std::string_view::npos || equals == 0) {
    return Status::invalid_argument(fmt::format(
        "--set '{}': expected key=value with a dotted key, e.g. cache.block_size=32", assignment));
  }
  const std::string key(assignment.substr(0, equals));
  const std::string value(assignment.substr(equals + 1));
  const std::string where = fmt::format("--set {}", assignment);
  SourceMark mark{where, 0, 0};
  ConfigNode node =
      value == "null" || value == "~" ? ConfigNode::null(mark) : ConfigNode::scalar(value, mark);
  const Status set = tree->set_path(key, std::move(node));
  return set.is_ok() ? set : set.with_context(where);
}

StatusOr<ConfigNode> load_scenario_tree(std::string_view name_or_path,
                                        const std::vector<std::string>& overrides) {
  KVSIM_ASSIGN_OR_RETURN(ConfigNode tree, load_preset_node(PresetKind::kScenario, name_or_path));
  if (tree.is_null()) tree = ConfigNode::map(tree.mark());
  if (!tree.is_map()) return error_at(tree.mark(), "a scenario must be a map of fields");
  for (const std::string& assignment : overrides) {
    KVSIM_RETURN_IF_ERROR(apply_override(&tree, assignment));
  }
  return tree;
}

StatusOr<Scenario> scenario_from_config(const ConfigNode& tree, const std::string& name,
                                        const std::string& base_dir) {
  Scenario s;
  s.name = name;
  s.tree = tree;
  ConfigReader r(tree, "scenario");
  r.optional("name", &s.name);
  r.optional("description", &s.description);
  r.optional("seed", &s.seed, uint64_t{0}, UINT64_MAX);
  r.optional("num_devices", &s.num_devices, 1u, 4096u);
  const ConfigNode* parallel = r.child("parallel");
  DType weight_dtype = DType::kFp16;  // read always, so that a null weight_dtype is a known key
  r.optional_with("weight_dtype", &weight_dtype, parse_into<parse_dtype>);
  if (r.has("weight_dtype")) s.weight_dtype = weight_dtype;
  const ConfigNode* model = r.child("model");
  const ConfigNode* device = r.child("device");
  r.allow("engine");
  r.allow("deployment");
  const ConfigNode* sections[5] = {r.child("cache"), r.child("scheduler"), r.child("workload"),
                                   r.child("cost_model"), r.child("output")};
  const ConfigNode* cluster_sections[3] = {r.child("cluster"), r.child("disaggregation"),
                                           r.child("tiers")};
  const ConfigNode* speculative = r.child("speculative");
  KVSIM_RETURN_IF_ERROR(r.finish());
  if (const ConfigNode* deployment = tree.find("deployment");
      deployment && !deployment->is_null()) {
    KVSIM_RETURN_IF_ERROR(apply_deployment(*deployment, tree, base_dir, &s));
  } else {
    if (model == nullptr) return error_at(tree.mark(), "scenario: missing 'model'");
    if (device == nullptr) return error_at(tree.mark(), "scenario: missing 'device'");
    KVSIM_ASSIGN_OR_RETURN(s.model, read_preset_ref(*model, "model", base_dir));
    KVSIM_ASSIGN_OR_RETURN(s.device, read_preset_ref(*device, "device", base_dir));
    if (const ConfigNode* engine = tree.find("engine"); engine && !engine->is_null()) {
      KVSIM_RETURN_IF_ERROR(read_engine_config(*engine, EngineConfigKeys::kScenario, &s.engine));
    }
  }
  if (parallel) KVSIM_RETURN_IF_ERROR(read_parallel(*parallel, tree, &s));
  s.parallel.tp = s.num_devices;
  if (sections[0]) KVSIM_RETURN_IF_ERROR(read_cache(*sections[0], &s.cache));
  if (sections[1]) KVSIM_RETURN_IF_ERROR(read_scheduler(*sections[1], &s.scheduler));
  if (sections[2] == nullptr) return error_at(tree.mark(), "scenario: missing 'workload'");
  KVSIM_RETURN_IF_ERROR(read_workload(*sections[2], base_dir, &s.workload));
  if (sections[3]) KVSIM_RETURN_IF_ERROR(read_cost_model(*sections[3], base_dir, &s.cost_model));
  if (sections[4]) KVSIM_RETURN_IF_ERROR(read_output(*sections[4], &s.output));
  if (speculative != nullptr && !speculative->is_null()) {
    KVSIM_RETURN_IF_ERROR(read_speculative(*speculative, base_dir, s.seed, &s.speculative));
    if (s.scheduler.policy != SchedulerPolicy::kVllm) {
      return error_at(speculative->mark(),
                      "speculative: decoding with drafts runs under scheduler policy vllm only "
                      "(vLLM v1), not " +
                          std::string(scheduler_policy_name(s.scheduler.policy)));
    }
  }
  KVSIM_RETURN_IF_ERROR(read_cluster_sections(cluster_sections[0], cluster_sections[1],
                                              cluster_sections[2], base_dir, s.num_devices,
                                              &s.cluster, &s.disaggregation, &s.tiers));
  if (s.speculative.present && s.is_cluster()) {
    return error_at(s.speculative.mark,
                    "speculative: a cluster run (cluster, disaggregation or tiers) does not "
                    "model speculative decoding yet; run one engine");
  }
  // KV from outside (tier loads, a prefill instance's KV) is admitted by the vllm policy only.
  if ((s.tiers.present || s.disaggregation.present) &&
      s.scheduler.policy != SchedulerPolicy::kVllm) {
    return error_at(tree.find("scheduler")->mark(),
                    "scheduler: policy " + std::string(scheduler_policy_name(s.scheduler.policy)) +
                        " takes no KV from tiers or a prefill instance; use policy vllm");
  }
  return s;
}

StatusOr<Scenario> load_scenario(std::string_view name_or_path,
                                 const std::vector<std::string>& overrides) {
  KVSIM_ASSIGN_OR_RETURN(ConfigNode tree, load_scenario_tree(name_or_path, overrides));
  std::string base_dir;
  if (looks_like_path(name_or_path)) {
    base_dir = std::filesystem::path(std::string(name_or_path)).parent_path().string();
    if (base_dir.empty()) base_dir = ".";
  }
  return scenario_from_config(tree, preset_stem(name_or_path), base_dir);
}

}  // namespace kvsim::sim
