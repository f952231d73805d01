#include "core/engine/startup_log.h"

#include <cmath>
#include <functional>
#include <sstream>

#include "core/base/regex_needles.h"
#include "core/base/std_regex.h"
#include "core/base/units.h"

namespace kvsim {
namespace {

using Match = std::smatch;
using Slot = std::optional<LoggedValue> StartupLog::*;

// One kind of line: a pattern and what its groups mean. `may_span`: the pattern may also match
// across a line break (a wrapped line or a shell continuation); patterns with ".*" or "^" may
// not, as joined to the next line they could pair words of two unrelated lines.
struct Rule {
  std::regex pattern;
  std::function<void(const Match&, int line, StartupLog*)> apply;
  bool may_span = true;
  RegexNeedles needles;  // a cheap test before the regex
};

bool may_span(std::string_view pattern) {
  return pattern.find(".*") == std::string_view::npos && !pattern.starts_with("^");
}

Rule make_rule(const char* pattern, std::function<void(const Match&, int, StartupLog*)> apply) {
  return {std::regex(pattern), std::move(apply), may_span(pattern), regex_needles(pattern)};
}

double number(const std::string& text) {
  std::string digits;
  for (char c : text) {
    if (c != ',') digits += c;
  }
  return std::strtod(digits.c_str(), nullptr);
}

// Which of several different values of one figure a log keeps.
enum class Keep {
  kFirst,     // several ranks or runs: the first printed
  kSmallest,  // vLLM V1 prints one KV pool per worker and allocates the smallest on every one
};

void add_note(StartupLog* log, const std::string& note) {
  for (const std::string& known : log->notes) {
    if (known == note) return;
  }
  log->notes.push_back(note);
}

// The first value is kept (or the smallest, with Keep::kSmallest); a later different value adds
// a note. Two printings of one figure at different precision (0.9276 GB and 0.93 GiB) agree
// within `tolerance`.
void put(StartupLog* log, Slot slot, const char* name, double value, int line, bool exact,
         double tolerance = 0, Keep keep = Keep::kFirst) {
  std::optional<LoggedValue>& field = log->*slot;
  if (!field) {
    field = LoggedValue{value, line, exact};
    return;
  }
  tolerance = std::max(tolerance, 1e-9 * std::max(1.0, std::fabs(value)));
  if (std::fabs(field->value - value) <= tolerance) return;
  if (keep == Keep::kFirst) {
    add_note(log, std::string("several values of ") + name + ": the first (line " +
                      std::to_string(field->line) + ") is used");
    return;
  }
  if (value < field->value) field = LoggedValue{value, line, exact};
  add_note(log, std::string("several values of ") + name +
                    " (one per worker): the smallest is used, the pool vLLM allocates on every "
                    "worker");
}

void put_gib(StartupLog* log, Slot slot, const char* name, const std::string& text, int line) {
  put(log, slot, name, number(text) * kBytesPerGiB, line, false,
      0.0051 * kBytesPerGiB);  // 2-decimal GiB
}

// A line whose group `group` is a GiB figure for `slot`.
Rule gib_rule(const char* pattern, Slot slot, const char* name, size_t group) {
  return make_rule(pattern, [slot, name, group](const Match& m, int line, StartupLog* log) {
    put_gib(log, slot, name, m[group].str(), line);
  });
}

void put_count(StartupLog* log, Slot slot, const char* name, const std::string& text, int line) {
  put(log, slot, name, number(text), line, true);
}

void set_engine(StartupLog* log, EngineKind kind, int line) {
  // Evidence ranks: an Ascend or SGLang line decides over generic vLLM lines, V0 over V1.
  const auto rank = [](EngineKind k) {
    return k == EngineKind::kVllmAscend ? 3
           : k == EngineKind::kSglang   ? 2
           : k == EngineKind::kVllmV0   ? 1
                                        : 0;
  };
  if (log->engine && rank(*log->engine) >= rank(kind)) return;
  log->engine = kind;
  log->engine_evidence = "line " + std::to_string(line);
}

void set_version(StartupLog* log, const std::string& text) {
  if (log->version) return;
  auto version = parse_engine_version(text);
  if (!version.is_ok()) return;
  log->version = *version;
  log->version_text = text;
}

Rule rule(const char* pattern, std::function<void(const Match&, int, StartupLog*)> apply) {
  return make_rule(pattern, std::move(apply));
}

// Which engine and version printed the log.
std::vector<Rule> engine_rules() {
  std::vector<Rule> r;
  r.push_back(rule(R"(Initializing a V1 LLM engine \(v([0-9][^)\s]*)\))",
                   [](const Match& m, int line, StartupLog* log) {
                     set_engine(log, EngineKind::kVllm, line);
                     set_version(log, m[1]);
                   }));
  r.push_back(rule(R"(Initializing an LLM engine \(v([0-9][^)\s]*)\))",
                   [](const Match& m, int line, StartupLog* log) {
                     set_version(log, m[1]);  // V1 says "Initializing a V1 LLM engine"
                     set_engine(log, EngineKind::kVllmV0, line);
                   }));
  r.push_back(rule(R"(vLLM Ascend( Version)?\s*:?\s*v?([0-9][0-9a-zA-Z.+]*))",
                   [](const Match& m, int line, StartupLog* log) {
                     set_engine(log, EngineKind::kVllmAscend, line);
                     log->version.reset();
                     set_version(log, m[2]);
                   }));
  // The release vLLM's start-up banner prints ("▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.27.1").
  r.push_back(rule(R"(█\s+version ([0-9]+\.[0-9]+\.[0-9]+))",
                   [](const Match& m, int, StartupLog* log) { set_version(log, m[1]); }));
  // The release a pasted `docker run vllm/vllm-openai:v0.31.0...` names by its image tag.
  r.push_back(rule(R"(vllm/vllm-openai:v([0-9]+\.[0-9]+\.[0-9]+))",
                   [](const Match& m, int, StartupLog* log) { set_version(log, m[1]); }));
  r.push_back(rule(R"((vLLM API server version|vLLM Version\s*:?)\s*v?([0-9][0-9a-zA-Z.+]*))",
                   [](const Match& m, int, StartupLog* log) {
                     if (log->engine != EngineKind::kVllmAscend) set_version(log, m[2]);
                   }));
  r.push_back(
      // Word-bounded: vLLM's environment dump has VLLM_MARLIN_INPUT_DTYPE ("INPUT" holds "NPU").
      rule(R"((\bAscend|\bNPU|npu blocks|worker_310p|halved for workspace|torch-npu|torch_npu))",
           [](const Match&, int line, StartupLog* log) {
             set_engine(log, EngineKind::kVllmAscend, line);
           }));
  r.push_back(rule(
      R"((Load weight end|KV Cache is allocated|sglang|mem_fraction_static|max_total_num_tokens))",
      [](const Match&, int line, StartupLog* log) { set_engine(log, EngineKind::kSglang, line); }));
  return r;
}

// What the engine was asked to run: model, TP, utilization, lengths, dtypes.
std::vector<Rule> setting_rules() {
  std::vector<Rule> r;
  r.push_back(rule(
      R"((tensor_parallel_size[=:'" ]+|--tensor-parallel-size[= ]|\s-tp\s|--tp(-size)?[= ])([0-9]+))",
      [](const Match& m, int line, StartupLog* log) {
        put_count(log, &StartupLog::tp, "tensor parallel size", m[3], line);
      }));
  r.push_back(rule(
      R"((gpu_memory_utilization['":= (]+|--gpu-memory-utilization[= ]|Desired GPU memory utilization is \()([0-9.]+))",
      [](const Match& m, int line, StartupLog* log) {
        put(log, &StartupLog::memory_utilization, "memory utilization", number(m[2]), line, true);
      }));
  r.push_back(rule(R"((mem_fraction_static[= ]+|--mem-fraction-static[= ])([0-9.]+))",
                   [](const Match& m, int line, StartupLog* log) {
                     put(log, &StartupLog::memory_utilization, "mem_fraction_static", number(m[2]),
                         line, true);
                   }));
  r.push_back(rule(
      R"((max_seq_len=|max_model_len=|Using max model len |--max-model-len[= ]|'max_model_len': |context_len=)([0-9,]+)\b)",
      [](const Match& m, int line, StartupLog* log) {
        put_count(log, &StartupLog::max_model_len, "max model length", m[2], line);
      }));
  r.push_back(rule(R"((max_num_batched_tokens[=:'" ]+|--max-num-batched-tokens[= ])([0-9]+))",
                   [](const Match& m, int line, StartupLog* log) {
                     put_count(log, &StartupLog::max_num_batched_tokens, "max_num_batched_tokens",
                               m[2], line);
                   }));
  r.push_back(rule(R"((max_num_seqs[=:'" ]+|--max-num-seqs[= ])([0-9]+))",
                   [](const Match& m, int line, StartupLog* log) {
                     put_count(log, &StartupLog::max_num_seqs, "max_num_seqs", m[2], line);
                   }));
  r.push_back(rule(R"(enforce_eager['"]?[=:] ?(True|False|true|false)|--enforce-eager\b)",
                   [](const Match& m, int line, StartupLog* log) {
                     const bool eager = !m[1].matched || m[1] == "True" || m[1] == "true";
                     put(log, &StartupLog::enforce_eager, "enforce_eager", eager ? 1 : 0, line,
                         true);
                   }));
  // vLLM's torch.compile on a warm cache loads the graphs it compiled before; on a cold one it
  // compiles them ("Compiling a graph for dynamic shape takes 25.44 s", 0.8 - 0.1x; "... for
  // compile range (1, 4096) takes 8.53 s", 0.2x).
  r.push_back(rule(R"(Directly load (the compiled graph|AOT compil)|Compiling a graph for)",
                   [](const Match& m, int line, StartupLog* log) {
                     put(log, &StartupLog::warm_compile_cache, "compile cache state",
                         m[1].matched ? 1 : 0, line, true);
                   }));
  r.push_back(rule(
      R"((model='|model="|'model': '|Starting to load model |vllm serve |--model[= ])([^'"\s,\\]+?)(\.\.\.|'|"|\s|$))",
      [](const Match& m, int, StartupLog* log) {
        if (log->model.empty()) log->model = m[2];
      }));
  r.push_back(rule(R"(\bdtype[=:'" ]+(torch\.)?(bfloat16|float16|half|float32|auto))",
                   [](const Match& m, int, StartupLog* log) {
                     if (log->dtype.empty()) log->dtype = m[2];
                   }));
  r.push_back(rule(R"((quantization[=:'" ]+|--quantization[= ])([a-z0-9_]+))",
                   [](const Match& m, int, StartupLog* log) {
                     if (log->quantization.empty() && m[2] != "None" && m[2] != "none")
                       log->quantization = m[2];
                   }));
  return r;
}

// The memory figures.
std::vector<Rule> memory_rules() {
  std::vector<Rule> r;
  r.push_back(gib_rule(R"((Loading model weights took|Model loading took) ([0-9.]+) Gi?B)",
                       &StartupLog::weights_bytes, "weights", 2));
  r.push_back(
      gib_rule(R"(model weights take\s+([0-9.]+) ?GiB)", &StartupLog::weights_bytes, "weights", 1));
  r.push_back(
      gib_rule(R"(([0-9.]+) GiB for weights?\b)", &StartupLog::weights_bytes, "weights", 1));
  r.push_back(gib_rule(R"((PyTorch activation peak memory( takes)?\s+)([0-9.]+) ?GiB)",
                       &StartupLog::activation_bytes, "activation peak", 3));
  r.push_back(gib_rule(R"(peak_torch_memory=([0-9.]+) ?GiB)", &StartupLog::peak_torch_bytes,
                       "torch peak", 1));
  r.push_back(gib_rule(R"(([0-9.]+) GiB for peak activation)", &StartupLog::activation_bytes,
                       "activation peak", 1));
  // Not V1's "worker init memory snapshot: ... non_torch_memory=X": the baseline, not the term.
  r.push_back(gib_rule(R"(^(?!.*memory snapshot).*non_torch_memory( takes)?[= \t]+([0-9.]+) ?GiB)",
                       &StartupLog::non_torch_bytes, "non-torch memory", 2));
  r.push_back(gib_rule(R"(([0-9.]+) GiB for non-torch memory)", &StartupLog::non_torch_bytes,
                       "non-torch memory", 1));
  r.push_back(gib_rule(R"(([0-9.]+) GiB for consumed memory \(weights \+ non-torch\))",
                       &StartupLog::consumed_bytes, "consumed memory", 1));
  r.push_back(rule(
      R"((([0-9.]+) GiB for (CUDAGraph|NPU graph) memory|Graph capturing finished in [0-9.]+ secs?, took ([0-9.]+) GiB|Estimated CUDA graph memory: ([0-9.]+) GiB))",
      [](const Match& m, int line, StartupLog* log) {
        const std::string value = m[2].matched   ? m[2].str()
                                  : m[4].matched ? m[4].str()
                                                 : m[5].str();
        put_gib(log, &StartupLog::graph_bytes, "graph memory", value, line);
      }));
  r.push_back(gib_rule(R"((total_gpu_memory[= \t(]+)([0-9.]+) ?GiB)", &StartupLog::total_bytes,
                       "total memory", 2));
  r.push_back(rule(R"(Free memory on device:? \(?([0-9.]+) ?/ ?([0-9.]+) GiB)",
                   [](const Match& m, int line, StartupLog* log) {
                     put_gib(log, &StartupLog::free_at_start_bytes, "free memory at start", m[1],
                             line);
                     put_gib(log, &StartupLog::total_bytes, "total memory", m[2], line);
                   }));
  r.push_back(rule(R"(Available memory: ([0-9]+), total memory: ([0-9]+))",
                   [](const Match& m, int line, StartupLog* log) {
                     set_engine(log, EngineKind::kVllmAscend, line);
                     put_count(log, &StartupLog::available_kv_bytes, "available memory", m[1],
                               line);
                     put_count(log, &StartupLog::total_bytes, "total memory", m[2], line);
                   }));
  r.push_back(gib_rule(R"(Desired GPU memory utilization is \([0-9.]+, ([0-9.]+) ?GiB)",
                       &StartupLog::requested_bytes, "requested memory", 1));
  r.push_back(gib_rule(
      R"((Requested memory:.*= |the current vLLM instance can use.*= |the current vLLM instance can use\s+)([0-9.]+) ?GiB)",
      &StartupLog::requested_bytes, "requested memory", 2));
  r.push_back(rule(R"(Requested memory:\s+([0-9.]+) \* ([0-9.]+))", [](const Match& m, int line,
                                                                       StartupLog* log) {
    put_gib(log, &StartupLog::total_bytes, "total memory", m[1], line);
    put(log, &StartupLog::memory_utilization, "memory utilization", number(m[2]), line, true);
  }));
  return r;
}

// The KV cache figures.
std::vector<Rule> kv_rules() {
  std::vector<Rule> r;
  r.push_back(rule(
      R"((Available KV cache memory: |kv_cache_size=|reserved for KV Cache is |available_kv_cache_memory\s+|Current KV cache memory: )(-?[0-9.]+) ?GiB( \(halved)?)",
      [](const Match& m, int line, StartupLog* log) {
        put_gib(log, &StartupLog::available_kv_bytes, "available KV cache memory", m[2], line);
        if (m[3].matched) log->halved = true;
      }));
  r.push_back(rule(R"((#\s*)?(GPU|CUDA|cuda|rocm|ROCm|NPU|npu) blocks: ([0-9]+))",
                   [](const Match& m, int line, StartupLog* log) {
                     put_count(log, &StartupLog::num_blocks, "KV blocks", m[3], line);
                     set_engine(log, EngineKind::kVllmV0, line);
                   }));
  r.push_back(rule(R"(GPU KV cache size:\s+([0-9,]+) tokens)",
                   [](const Match& m, int line, StartupLog* log) {
                     put(log, &StartupLog::kv_tokens, "KV cache tokens", number(m[1]), line, true,
                         0, Keep::kSmallest);
                     set_engine(log, EngineKind::kVllm, line);
                   }));
  // vLLM V1's stat logger: the blocks each worker allocated, after unifying the workers' pools.
  r.push_back(rule(R"(num_gpu_blocks is: ([0-9]+))", [](const Match& m, int line, StartupLog* log) {
    put_count(log, &StartupLog::num_blocks, "KV blocks", m[1], line);
    set_engine(log, EngineKind::kVllm, line);
  }));
  r.push_back(rule(R"((#tokens: |max_total_num_tokens=)([0-9]+))",
                   [](const Match& m, int line, StartupLog* log) {
                     put_count(log, &StartupLog::kv_tokens, "KV cache tokens", m[2], line);
                   }));
  r.push_back(rule(R"(Maximum concurrency for ([0-9,]+) tokens per request: ([0-9.]+)x)",
                   [](const Match& m, int line, StartupLog* log) {
                     put_count(log, &StartupLog::max_model_len, "max model length", m[1], line);
                     put(log, &StartupLog::max_concurrency, "maximum concurrency", number(m[2]),
                         line, false, 0.0051, Keep::kSmallest);
                   }));
  r.push_back(rule(R"(Maximum concurrency \.\.\. ([0-9.]+)x)",
                   [](const Match& m, int line, StartupLog* log) {
                     put(log, &StartupLog::max_concurrency, "maximum concurrency", number(m[1]),
                         line, false, 0.0051);
                   }));
  r.push_back(rule(R"((K size: ([0-9.]+) GB, V size: ([0-9.]+) GB|KV size: ([0-9.]+) GB))",
                   [](const Match& m, int line, StartupLog* log) {
                     const double gib = m[2].matched ? number(m[2]) + number(m[3]) : number(m[4]);
                     put(log, &StartupLog::sglang_kv_size_bytes, "KV pool size", gib * kBytesPerGiB,
                         line, false);
                   }));
  r.push_back(gib_rule(R"(Load weight end.*avail mem=([0-9.]+) GB, mem usage=([0-9.]+) GB)",
                       &StartupLog::weights_bytes, "weights", 2));
  return r;
}

const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> out;
    for (auto* make : {&engine_rules, &setting_rules, &memory_rules, &kv_rules}) {
      for (Rule& r : make()) out.push_back(std::move(r));
    }
    return out;
  }();
  return rules;
}

// A line as it continues onto the next: without trailing blanks and a shell's continuation
// backslash (vllm serve \).
std::string continued_head(const std::string& line) {
  size_t end = line.find_last_not_of(" \t\r");
  if (end != std::string::npos && line[end] == '\\') {
    end = end == 0 ? std::string::npos : line.find_last_not_of(" \t\r", end - 1);
  }
  return end == std::string::npos ? std::string() : line.substr(0, end + 1);
}

std::string without_leading_space(const std::string& line) {
  const size_t begin = line.find_first_not_of(" \t");
  return begin == std::string::npos ? std::string() : line.substr(begin);
}

// Applies every rule to `text`, reporting `line`. With `junction` set, `text` is a line joined
// to the next at `junction` (one blank between), and only the matches that run from the first
// line into the second count: the others were read with each line alone.
bool apply_rules(const std::string& text, size_t junction, int line, StartupLog* log) {
  bool matched = false;
  for (const Rule& r : all_rules()) {
    if (junction != std::string::npos && !r.may_span) continue;
    if (!r.needles.may_match(text)) continue;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), r.pattern);
         it != std::sregex_iterator(); ++it) {
      const size_t begin = static_cast<size_t>(it->position(0));
      const size_t end = begin + static_cast<size_t>(it->length(0));
      if (junction != std::string::npos && (begin >= junction || end <= junction + 1)) continue;
      r.apply(*it, line, log);
      matched = true;
    }
  }
  return matched;
}

// The version a log's format implies, when it prints none: the oldest release that prints it.
void infer_version(const std::string& text, StartupLog* log) {
  if (log->version) return;
  const EngineKind engine = log->engine.value_or(EngineKind::kVllm);
  struct Format {
    EngineKind engine;
    const char* marker;
    EngineVersion version;
  };
  static const Format kFormats[] = {
      {EngineKind::kVllm, "(default since v0.21.0)", {0, 21, 0}},
      {EngineKind::kVllm, "Actual usage", {0, 11, 0}},
      {EngineKind::kVllm, "Available KV cache memory", {0, 9, 1}},
      {EngineKind::kVllmV0, "executor_base.py", {0, 7, 0}},
      {EngineKind::kVllmV0, "the current vLLM instance can use", {0, 6, 5}},
      {EngineKind::kVllmV0, "Memory profiling results: total_gpu_memory=", {0, 6, 4}},
  };
  for (const Format& format : kFormats) {
    if (format.engine == engine && text.find(format.marker) != std::string::npos) {
      log->format_version = format.version;
      return;
    }
  }
}

}  // namespace

StatusOr<StartupLog> parse_startup_log(std::string_view text, const std::string& file_name) {
  StartupLog log;
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  const int line_count = static_cast<int>(lines.size());
  for (int i = 0; i < line_count; ++i) {
    bool matched = apply_rules(lines[i], std::string::npos, i + 1, &log);
    if (i + 1 < line_count) {
      const std::string head = continued_head(lines[i]);
      const std::string joined = head + " " + without_leading_space(lines[i + 1]);
      matched = apply_rules(joined, head.size(), i + 1, &log) || matched;
    }
    if (matched) ++log.num_matched_lines;
  }
  log.num_lines = line_count;
  if (line_count == 0 || text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Status::invalid_argument(file_name + ": the log is empty");
  }
  const bool has_figure = log.kv_tokens || log.num_blocks || log.available_kv_bytes ||
                          log.weights_bytes || log.requested_bytes || log.activation_bytes;
  if (!has_figure) {
    return Status::invalid_argument(
        file_name + ": not a start-up log of vLLM, vllm-ascend or SGLang (none of its " +
        std::to_string(line_count) +
        " lines holds a memory or KV cache figure those engines print, e.g. \"Available KV "
        "cache memory: ... GiB\", \"# GPU blocks: ...\" or \"KV Cache is allocated. #tokens: "
        "...\")");
  }
  infer_version(std::string(text), &log);
  return log;
}

}  // namespace kvsim
