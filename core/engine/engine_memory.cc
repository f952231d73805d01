#include "core/engine/engine_memory.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "core/base/checked_math.h"
#include "core/base/names.h"
#include "core/base/text_format.h"
#include "core/engine/engine_memory_rules.h"

namespace kvsim {
namespace {

using engine_rules::Inputs;

constexpr std::array<std::pair<EngineKind, std::string_view>, 5> kKinds = {{
    {EngineKind::kVllm, "vllm"},
    {EngineKind::kVllmV0, "vllm-v0"},
    {EngineKind::kVllmAscend, "vllm-ascend"},
    {EngineKind::kSglang, "sglang"},
    {EngineKind::kMindie, "mindie"},
}};

// Why the engine's total is what it is: engines read the runtime's total (torch's
// mem_get_info), which is below the device's nominal memory by what the driver keeps.
std::string engine_total_source(const EngineQuery& query, const DeviceSpec& device) {
  if (query.total_memory_bytes) return "the total the deployment (or log) gives";
  if (device.runtime_memory_bytes > 0) {
    const std::string nominal = device.runtime_memory_bytes < device.memory_bytes
                                    ? "; nominal " + format_bytes(device.memory_bytes)
                                    : std::string();
    return "the runtime's total on " + device.name + " (its runtime_memory_gib" + nominal + ")";
  }
  return device.name +
         "'s memory: its runtime total is not known (no runtime_memory_gib), and engines read "
         "the runtime's (0.3-0.9 GiB less on NVIDIA cards, 3 GiB on a 64 GB Ascend 910B), so "
         "this budget may be high";
}

// Digits at the front of `text` (advanced past them); empty optional when there are none.
std::optional<uint32_t> take_number(std::string_view* text) {
  size_t n = 0;
  uint64_t value = 0;
  while (n < text->size() && (*text)[n] >= '0' && (*text)[n] <= '9' && value < 1'000'000) {
    value = value * 10 + static_cast<uint64_t>((*text)[n] - '0');
    ++n;
  }
  if (n == 0 || value >= 1'000'000) return std::nullopt;
  text->remove_prefix(n);
  return static_cast<uint32_t>(value);
}

// The oldest release each engine's rules cover.
EngineVersion oldest_version(EngineKind kind) {
  switch (kind) {
    case EngineKind::kVllm:
      return {0, 8, 0};
    case EngineKind::kVllmV0:
      return {0, 4, 0};
    case EngineKind::kVllmAscend:
      return {0, 7, 3};
    case EngineKind::kSglang:
      return {0, 3, 0};
    case EngineKind::kMindie:
      return {1, 0, 0};
  }
  return {};
}

Status check_version(EngineKind kind, const EngineVersion& version) {
  const EngineVersion oldest = oldest_version(kind);
  const std::string name(engine_kind_name(kind));
  if (version < oldest) {
    std::string hint =
        kind == EngineKind::kVllm ? " (older vLLM runs the V0 engine: --engine vllm-v0)" : "";
    return Status::invalid_argument(name + " " + engine_version_name(version) +
                                    " is older than the first release kvsim models (" +
                                    engine_version_name(oldest) + ")" + hint);
  }
  if (kind == EngineKind::kVllmV0 && version >= EngineVersion{0, 11, 0}) {
    return Status::invalid_argument("vLLM " + engine_version_name(version) +
                                    " has no V0 engine (removed in 0.11); use --engine vllm");
  }
  return Status::ok();
}

Status dispatch(const Inputs& in, EngineBudget* out) {
  switch (in.query.kind) {
    case EngineKind::kVllm:
      return engine_rules::vllm_v1_budget(in, out);
    case EngineKind::kVllmV0:
      return engine_rules::vllm_v0_budget(in, out);
    case EngineKind::kVllmAscend:
      return engine_rules::vllm_ascend_budget(in, out);
    case EngineKind::kSglang:
      return engine_rules::sglang_budget(in, out);
    case EngineKind::kMindie:
      return engine_rules::mindie_budget(in, out);
  }
  return Status::invalid_argument("unknown engine");
}

// Sums the terms (or puts the measured set-aside in their place) and forms the KV budget.
void finish_budget(const EngineQuery& query, EngineBudget* out) {
  if (query.measured_set_aside_bytes) {
    out->terms.clear();
    out->terms.push_back({"measured set-aside", *query.measured_set_aside_bytes,
                          "requested - KV budget, from the engine's start-up log",
                          "kvsim calibrate --from-log (a deployment file)",
                          SetAsideKind::kMeasured});
    out->measured = true;
  }
  out->set_aside_bytes = 0;
  for (const SetAsideTerm& term : out->terms) out->set_aside_bytes += term.bytes;
  out->budget_negative = out->set_aside_bytes > out->requested_bytes;
  if (out->budget_negative) {
    out->kv_budget_bytes = 0;
    return;
  }
  const uint64_t rest = out->requested_bytes - out->set_aside_bytes;
  out->kv_budget_bytes =
      out->kv_factor >= 1.0
          ? rest
          : static_cast<uint64_t>(std::floor(static_cast<long double>(rest) * out->kv_factor));
}

}  // namespace

std::string_view engine_kind_name(EngineKind kind) {
  for (const auto& [value, name] : kKinds) {
    if (value == kind) return name;
  }
  KVSIM_CHECK(false, "engine kind out of range");
}

std::vector<std::string> engine_kind_names() {
  std::vector<std::string> names;
  for (const auto& entry : kKinds) names.emplace_back(entry.second);
  return names;
}

StatusOr<EngineKind> parse_engine_kind(std::string_view name) {
  for (const auto& [value, known] : kKinds) {
    if (known == name) return value;
  }
  return Status::invalid_argument(unknown_name_message("engine", name, engine_kind_names()));
}

StatusOr<EngineVersion> parse_engine_version(std::string_view text) {
  std::string_view rest = text;
  if (!rest.empty() && (rest.front() == 'v' || rest.front() == 'V')) rest.remove_prefix(1);
  EngineVersion version;
  uint32_t* parts[3] = {&version.major, &version.minor, &version.patch};
  for (int i = 0; i < 3; ++i) {
    const auto number = take_number(&rest);
    if (!number) {
      if (i >= 2) break;  // "0.11" is 0.11.0
      return Status::invalid_argument("engine version '" + std::string(text) +
                                      "': expected major.minor[.patch], e.g. 0.11.0");
    }
    *parts[i] = *number;
    if (rest.empty() || rest.front() != '.') break;
    rest.remove_prefix(1);
  }
  return version;  // anything after (rc1, .dev705+g01220ce89, .post2) names a build of it
}

std::string engine_version_name(const EngineVersion& version) {
  return std::to_string(version.major) + "." + std::to_string(version.minor) + "." +
         std::to_string(version.patch);
}

EngineVersion newest_engine_version(EngineKind kind) {
  switch (kind) {
    case EngineKind::kVllm:
      return {0, 28, 0};
    case EngineKind::kVllmV0:
      return {0, 10, 2};
    case EngineKind::kVllmAscend:
      return {0, 22, 1};
    case EngineKind::kSglang:
      return {0, 5, 6};
    case EngineKind::kMindie:
      return {2, 0, 0};
  }
  return {};
}

std::string_view entry_point_name(EntryPoint entry) {
  return entry == EntryPoint::kServer ? "serve" : "llm";
}

StatusOr<EntryPoint> parse_entry_point(std::string_view name) {
  if (name == "serve") return EntryPoint::kServer;
  if (name == "llm") return EntryPoint::kOffline;
  return Status::invalid_argument(unknown_name_message("entry point", name, {"serve", "llm"}));
}

StatusOr<EngineBudget> compute_engine_budget(const ModelSpec& model, const DeviceSpec& device,
                                             const CapacityQuery& capacity,
                                             const EngineQuery& query) {
  if (model.num_params == 0) {
    return Status::invalid_argument("model '" + model.name +
                                    "' has no num_params: the engine's budget subtracts the "
                                    "weights (give --kv-budget-bytes instead)");
  }
  if (query.memory_utilization &&
      !(*query.memory_utilization > 0 && *query.memory_utilization <= 1)) {
    return Status::invalid_argument("the memory utilization must be in (0, 1]");
  }
  if (capacity.tp == 0) return Status::invalid_argument("--tp must be >= 1");
  KVSIM_RETURN_IF_ERROR(validate_parallel_layout(model, parallel_layout(capacity)));
  EngineQuery resolved = query;
  std::string ascend_note;
  if (resolved.kind == EngineKind::kVllm && device.vendor == "huawei") {
    resolved.kind = EngineKind::kVllmAscend;  // vLLM runs on Ascend through the plugin
    ascend_note = "vllm on an Ascend device runs through vllm-ascend: its rule applies";
  }
  const EngineVersion version = resolved.version.value_or(newest_engine_version(resolved.kind));
  KVSIM_RETURN_IF_ERROR(check_version(resolved.kind, version));
  const uint64_t total = query.total_memory_bytes.value_or(engine_total_memory_bytes(device));
  const uint64_t max_model_len =
      query.max_model_len > 0 ? query.max_model_len : model.max_position_embeddings;
  const Inputs in{
      model, device, capacity, resolved, version, total, std::max<uint64_t>(max_model_len, 1)};
  EngineBudget out;
  out.kind = resolved.kind;
  if (!ascend_note.empty()) out.notes.push_back(ascend_note);
  out.version = version;
  out.total_bytes = total;
  out.total_source = engine_total_source(query, device);
  out.max_model_len = in.max_model_len;
  out.block_size = device.default_block_size;
  KVSIM_RETURN_IF_ERROR(dispatch(in, &out));
  finish_budget(resolved, &out);
  return out;
}

EngineKvReport engine_kv_report(const EngineBudget& budget, uint64_t num_blocks,
                                uint32_t block_size) {
  EngineKvReport out;
  const uint64_t len = std::max<uint64_t>(budget.max_model_len, 1);
  const uint64_t blocks_per_request = ceil_div(len, block_size);
  out.kv_tokens = num_blocks * block_size;
  out.tokens_formula = "blocks x block_size";
  if (budget.kind == EngineKind::kSglang) {
    out.tokens_formula = "max_total_num_tokens = pages x page_size";
    return out;  // SGLang prints no concurrency line
  }
  const bool by_blocks = budget.kind != EngineKind::kVllmV0 && budget.kind != EngineKind::kMindie &&
                         budget.version >= EngineVersion{0, 9, 1};
  if (by_blocks) {
    out.max_concurrency = static_cast<double>(num_blocks) / static_cast<double>(blocks_per_request);
    out.concurrency_formula = "blocks / ceil(max_model_len / block_size)";
  } else {
    out.max_concurrency = static_cast<double>(out.kv_tokens) / static_cast<double>(len);
    out.concurrency_formula = "tokens / max_model_len";
  }
  if ((budget.kind == EngineKind::kVllm || budget.kind == EngineKind::kVllmAscend) &&
      budget.version >= EngineVersion{0, 21, 0}) {
    out.kv_tokens = static_cast<uint64_t>(out.max_concurrency * static_cast<double>(len));
    out.tokens_formula = "int(max_concurrency x max_model_len)";
  }
  return out;
}

}  // namespace kvsim
