#include "core/engine/log_calibration.h"

#include <algorithm>
#include <cmath>

#include "core/base/checked_math.h"
#include "core/base/text_format.h"
#include "core/base/units.h"

namespace kvsim {
namespace {

std::optional<double> gib(const std::optional<LoggedValue>& v) {
  if (!v) return std::nullopt;
  return v->value / kBytesPerGiB;
}

std::optional<double> count(const std::optional<LoggedValue>& v) {
  if (!v) return std::nullopt;
  return v->value;
}

std::optional<double> term_gib(const EngineBudget& b, std::string_view name) {
  for (const SetAsideTerm& term : b.terms) {
    if (term.name == name) return static_cast<double>(term.bytes) / kBytesPerGiB;
  }
  return std::nullopt;
}

int line_of(const std::optional<LoggedValue>& v) { return v ? v->line : 0; }

void add_row(std::vector<FigureRow>* rows, std::string name, std::string unit,
             const std::optional<LoggedValue>& logged, std::optional<double> logged_in_unit,
             std::optional<double> predicted) {
  if (!logged_in_unit) return;
  rows->push_back({std::move(name), std::move(unit), logged_in_unit, predicted, line_of(logged)});
}

// The log's activation peak: its own line, or vLLM 0.6.4's torch peak less the weights.
std::optional<LoggedValue> logged_activation(const StartupLog& log) {
  if (log.activation_bytes || !log.peak_torch_bytes || !log.weights_bytes) {
    return log.activation_bytes;
  }
  return LoggedValue{log.peak_torch_bytes->value - log.weights_bytes->value,
                     log.peak_torch_bytes->line, false};
}

// The log's non-torch term: its own line, or V1's "consumed memory (weights + non-torch)"
// less the weights.
std::optional<LoggedValue> logged_non_torch(const StartupLog& log) {
  if (log.non_torch_bytes || !log.consumed_bytes || !log.weights_bytes) {
    return log.non_torch_bytes;
  }
  return LoggedValue{log.consumed_bytes->value - log.weights_bytes->value, log.consumed_bytes->line,
                     false};
}

// What the device held at start (total - free), in GiB, reported at the free-memory line.
std::optional<double> in_use_at_start(const StartupLog& log) {
  if (!log.free_at_start_bytes || !log.total_bytes) return std::nullopt;
  return (log.total_bytes->value - log.free_at_start_bytes->value) / kBytesPerGiB;
}

std::vector<FigureRow> figure_rows(const StartupLog& log, const CalibrationSetup& setup,
                                   const CapacityPlan& p) {
  const ModelSpec& model = setup.model;
  std::vector<FigureRow> rows;
  const EngineBudget& b = *p.engine;
  const std::optional<LoggedValue> activation = logged_activation(log);
  // The graph row compares with kvsim's estimate even where the version does not subtract it.
  const double graphs =
      static_cast<double>(graph_estimate_bytes(model, b.graph_capture_size)) / kBytesPerGiB;
  const auto opt = [](const std::optional<uint64_t>& v) {
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  };
  add_row(&rows, "total memory", "GiB", log.total_bytes, gib(log.total_bytes),
          b.total_bytes / kBytesPerGiB);
  add_row(&rows, "requested memory", "GiB", log.requested_bytes, gib(log.requested_bytes),
          b.requested_bytes / kBytesPerGiB);
  // Taken into the prediction, as the total is: what it costs is the engine's rule.
  add_row(&rows, "in use at start", "GiB", log.free_at_start_bytes, in_use_at_start(log),
          static_cast<double>(setup.engine.device_used_bytes) / kBytesPerGiB);
  add_row(&rows, "weights", "GiB", log.weights_bytes, gib(log.weights_bytes),
          term_gib(b, "weights"));
  // From v0.21 the engine subtracts its CUDA-graph estimate, and the "Actual usage ... GiB for
  // peak activation" it prints afterwards includes it: 110.06 - 55.99 consumed - 3.78 peak =
  // the 50.29 GiB KV pool of a logged run whose estimate was 1.94 GiB (docs/engine_memory.md).
  if (b.graphs_subtracted && log.activation_bytes) {
    add_row(&rows, "activation + graph estimate", "GiB", activation, gib(activation),
            term_gib(b, "activation peak").value_or(0) + term_gib(b, "CUDA graphs").value_or(0));
  } else {
    add_row(&rows, "activation peak", "GiB", activation, gib(activation),
            term_gib(b, "activation peak"));
  }
  const std::optional<LoggedValue> non_torch = logged_non_torch(log);
  add_row(&rows, "non-torch memory", "GiB", non_torch, gib(non_torch),
          term_gib(b, "non-torch memory"));
  add_row(&rows, "graph memory", "GiB", log.graph_bytes, gib(log.graph_bytes), graphs);
  // Signed, as the engines print it ("the rest ... reserved for KV Cache is -1.05GiB").
  const double available =
      (static_cast<double>(b.requested_bytes) - static_cast<double>(b.set_aside_bytes)) *
      b.kv_factor;
  add_row(&rows, "available KV cache memory", "GiB", log.available_kv_bytes,
          gib(log.available_kv_bytes), available / kBytesPerGiB);
  add_row(&rows, "KV blocks", "blocks", log.num_blocks, count(log.num_blocks),
          opt(p.capacity.num_blocks));
  const std::optional<uint64_t> tokens =
      p.reported ? std::optional<uint64_t>(p.reported->kv_tokens) : std::nullopt;
  add_row(&rows, "KV cache size", "tokens", log.kv_tokens, count(log.kv_tokens), opt(tokens));
  add_row(&rows, "maximum concurrency", "x", log.max_concurrency, count(log.max_concurrency),
          p.reported ? std::optional<double>(p.reported->max_concurrency) : std::nullopt);
  return rows;
}

// The block count whose report is `tokens` (vLLM >= 0.21 prints int(blocks / ceil(L/bs) x L)).
std::optional<uint64_t> blocks_for_tokens(const EngineBudget& budget, uint64_t tokens,
                                          uint32_t block_size) {
  const uint64_t per_request = ceil_div(std::max<uint64_t>(budget.max_model_len, 1), block_size);
  const double guess = static_cast<double>(tokens) * static_cast<double>(per_request) /
                       static_cast<double>(std::max<uint64_t>(budget.max_model_len, 1));
  const uint64_t center = static_cast<uint64_t>(guess);
  for (uint64_t b = center > 2 ? center - 2 : 0; b <= center + 2; ++b) {
    if (engine_kv_report(budget, b, block_size).kv_tokens == tokens) return b;
  }
  return std::nullopt;
}

struct Target {
  uint64_t blocks = 0;
  std::string source;
  bool exact = false;
};

StatusOr<Target> logged_pool(const StartupLog& log, const CapacityPlan& p) {
  const uint64_t bpb = p.capacity.kv_bytes_per_block;
  const uint32_t bs = p.capacity.block_size;
  const auto at = [](const LoggedValue& v) { return " (line " + std::to_string(v.line) + ")"; };
  if (log.num_blocks) {
    return Target{static_cast<uint64_t>(log.num_blocks->value), "KV blocks" + at(*log.num_blocks),
                  true};
  }
  if (log.kv_tokens) {
    const uint64_t tokens = static_cast<uint64_t>(log.kv_tokens->value);
    const auto blocks = blocks_for_tokens(*p.engine, tokens, bs);
    if (!blocks) {
      return Status::invalid_argument(
          "the log's " + format_count(tokens) + " KV tokens are no whole number of " +
          std::to_string(bs) + "-token blocks for max_model_len " +
          format_count(p.engine->max_model_len) + ": check --block-size and --max-model-len");
    }
    return Target{*blocks, "KV cache tokens" + at(*log.kv_tokens), true};
  }
  if (log.available_kv_bytes) {
    const double bytes = std::max(0.0, log.available_kv_bytes->value);
    return Target{static_cast<uint64_t>(bytes) / bpb,
                  "available KV cache memory" + at(*log.available_kv_bytes),
                  log.available_kv_bytes->exact};
  }
  if (log.sglang_kv_size_bytes) {
    return Target{static_cast<uint64_t>(log.sglang_kv_size_bytes->value) / bpb,
                  "KV pool size" + at(*log.sglang_kv_size_bytes), false};
  }
  return Status::invalid_argument(
      "the log states no KV cache size: none of \"GPU KV cache size: N tokens\", \"# GPU "
      "blocks: N\", \"Available KV cache memory: X GiB\" or SGLang's \"#tokens: N\"");
}

// A budget inside the target's interval: the logged available memory if it falls inside.
uint64_t budget_for(const StartupLog& log, uint64_t blocks, uint64_t bytes_per_block) {
  const uint64_t low = blocks * bytes_per_block;
  const uint64_t high = low + bytes_per_block - 1;
  if (log.available_kv_bytes && log.available_kv_bytes->value > 0) {
    const uint64_t logged = static_cast<uint64_t>(log.available_kv_bytes->value);
    return std::clamp(logged, low, high);
  }
  return low + bytes_per_block / 2;
}

}  // namespace

StatusOr<LogCalibration> calibrate_from_log(const StartupLog& log, const CalibrationSetup& setup) {
  LogCalibration out;
  KVSIM_ASSIGN_OR_RETURN(out.predicted,
                         plan_capacity(setup.model, &setup.device, setup.capacity, setup.engine));
  if (!out.predicted.engine) {
    return Status::invalid_argument("model '" + setup.model.name + "' has no num_params");
  }
  out.rows = figure_rows(log, setup, out.predicted);
  KVSIM_ASSIGN_OR_RETURN(const Target target, logged_pool(log, out.predicted));
  out.target_blocks = target.blocks;
  out.target_source = target.source;
  out.exact = target.exact;
  const EngineBudget& budget = *out.predicted.engine;
  const uint64_t kv_budget =
      budget_for(log, target.blocks, out.predicted.capacity.kv_bytes_per_block);
  const uint64_t rest =
      static_cast<uint64_t>(std::ceil(static_cast<long double>(kv_budget) / budget.kv_factor));
  if (rest > budget.requested_bytes && !setup.model_mismatch.empty()) {
    return Status::invalid_argument(setup.model_mismatch + " (as " + setup.model.name +
                                    "'s, the log's KV cache would take " + format_bytes(kv_budget) +
                                    ", more than the requested " +
                                    format_bytes(budget.requested_bytes) + ")");
  }
  if (rest > budget.requested_bytes) {
    return Status::invalid_argument("the log's KV cache (" + format_bytes(kv_budget) +
                                    ") exceeds what kvsim takes as the "
                                    "requested memory (" +
                                    format_bytes(budget.requested_bytes) + " = " +
                                    budget.requested_formula +
                                    "): check --mem-fraction and the device's memory");
  }
  out.set_aside_bytes = budget.requested_bytes - rest;
  EngineQuery measured = setup.engine;
  measured.memory_utilization = budget.memory_utilization;
  measured.version = budget.version;
  measured.measured_set_aside_bytes = out.set_aside_bytes;
  CapacityQuery capacity = setup.capacity;
  capacity.block_size = out.predicted.capacity.block_size;
  KVSIM_ASSIGN_OR_RETURN(out.calibrated,
                         plan_capacity(setup.model, &setup.device, capacity, measured));
  KVSIM_CHECK(out.calibrated.capacity.num_blocks == target.blocks,
              "the calibrated budget must give the log's block count");
  if (!target.exact) {
    out.notes.push_back("the log gives the pool only as " + target.source +
                        " (rounded): the reproduction is as exact as that figure");
  }
  return out;
}

Deployment calibrated_deployment(const StartupLog& log, const CalibrationSetup& setup,
                                 const LogCalibration& calibration, const std::string& source) {
  Deployment d;
  d.source = source;
  d.model = setup.model_node;
  d.device = setup.device_node;
  d.tp = setup.capacity.tp;
  d.weight_dtype = setup.capacity.weight_dtype;
  d.kv_dtype = setup.capacity.kv.dtype;
  d.block_size = calibration.calibrated.capacity.block_size;
  d.engine = setup.engine;
  const EngineBudget& b = *calibration.calibrated.engine;
  d.engine.kind = b.kind;
  d.engine.version = b.version;
  d.engine.memory_utilization = b.memory_utilization;
  d.engine.max_model_len = b.max_model_len;
  d.engine.total_memory_bytes = b.total_bytes;
  d.engine.measured_set_aside_bytes = calibration.set_aside_bytes;
  d.logged = ConfigNode::map();
  for (const FigureRow& row : calibration.rows) {
    d.logged.set(row.name + (row.unit == "GiB" ? " (GiB)" : ""),
                 ConfigNode::scalar(format_number(*row.logged)));
  }
  if (!log.model.empty()) d.logged.set("model", ConfigNode::scalar(log.model));
  return d;
}

}  // namespace kvsim
