#include "simulator/workload/bench_result.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/base/json_text.h"
#include "simulator/io/atomic_file.h"
#include "simulator/workload/random.h"

namespace kvsim::sim {
namespace {

using nlohmann::json;

Status error(const std::string& path, const std::string& what) {
  return Status::invalid_argument(fmt::format("{}: {}", path, what));
}

// The per-request list `key`, which must hold `count` entries (count 0: any).
StatusOr<const json*> list_of(const json& root, const std::string& path, const char* key,
                              size_t count) {
  const auto it = root.find(key);
  if (it == root.end()) {
    return error(path, fmt::format("no '{}': not a `vllm bench serve --save-result "
                                   "--save-detailed` or `sglang.bench_serving --output-details` "
                                   "result (without --save-detailed / --output-details the "
                                   "per-request lists are left out)",
                                   key));
  }
  if (!it->is_array()) return error(path, fmt::format("'{}' must be a list", key));
  if (count > 0 && it->size() != count) {
    return error(
        path, fmt::format("'{}' has {} entries where 'input_lens' has {}", key, it->size(), count));
  }
  return &*it;
}

Status read_settings(const json& root, const std::string& path, BenchResult* out) {
  if (const auto rate = root.find("request_rate"); rate != root.end()) {
    if (rate->is_number() && rate->get<double>() > 0) {
      out->request_rate = rate->get<double>();
    } else if (!rate->is_null() && !(rate->is_string() && rate->get<std::string>() == "inf")) {
      return error(path, "'request_rate' must be a positive number or \"inf\"");
    }
  }
  if (const auto b = root.find("burstiness"); b != root.end() && !b->is_null()) {
    if (!b->is_number() || b->get<double>() <= 0) {
      return error(path, "'burstiness' must be a positive number");
    }
    out->burstiness = b->get<double>();
  }
  if (const auto c = root.find("max_concurrency"); c != root.end() && !c->is_null()) {
    if (!c->is_number_unsigned() || c->get<uint64_t>() > UINT32_MAX) {
      return error(path, "'max_concurrency' must be null or a non-negative integer");
    }
    out->max_concurrency = static_cast<uint32_t>(c->get<uint64_t>());
  }
  if (const auto d = root.find("duration"); d != root.end() && d->is_number()) {
    out->duration_s = d->get<double>();
  }
  for (const auto& [key, field] :
       {std::pair{"model_id", &out->model_id}, std::pair{"backend", &out->backend}}) {
    if (const auto it = root.find(key); it != root.end() && it->is_string()) *field = *it;
  }
  return Status::ok();
}

// Request `i`'s entries; false in *ok when its error is not empty (a failed request).
Status read_request(const json& inputs, const json& outputs, const json& ttfts, const json& itls,
                    const json* errors, const json* starts, size_t i, const std::string& path,
                    BenchRequest* out, bool* ok) {
  *ok = errors == nullptr || (*errors)[i].is_null() ||
        ((*errors)[i].is_string() && (*errors)[i].get<std::string>().empty());
  if (!*ok) return Status::ok();
  auto count = [&](const json& list, const char* key, uint32_t* value) -> Status {
    if (!list[i].is_number_unsigned() || list[i].get<uint64_t>() > UINT32_MAX) {
      return error(path, fmt::format("'{}'[{}] must be a token count", key, i));
    }
    *value = static_cast<uint32_t>(list[i].get<uint64_t>());
    return Status::ok();
  };
  KVSIM_RETURN_IF_ERROR(count(inputs, "input_lens", &out->prompt_tokens));
  KVSIM_RETURN_IF_ERROR(count(outputs, "output_lens", &out->output_tokens));
  if (!ttfts[i].is_number() || ttfts[i].get<double>() < 0) {
    return error(path, fmt::format("'ttfts'[{}] must be a time in seconds", i));
  }
  out->ttft_s = ttfts[i].get<double>();
  if (!itls[i].is_array()) return error(path, fmt::format("'itls'[{}] must be a list", i));
  for (const json& gap : itls[i]) {
    if (!gap.is_number()) return error(path, fmt::format("'itls'[{}] must hold times", i));
    out->itls_s.push_back(gap.get<double>());
  }
  if (starts != nullptr && (*starts)[i].is_number()) out->start_time_s = (*starts)[i].get<double>();
  return Status::ok();
}

// One result object (`path` names it in messages: the file, or file:LINE).
StatusOr<BenchResult> read_result_object(const json& root, const std::string& path) {
  if (!root.is_object()) return error(path, "expected a JSON object (a vllm bench serve result)");
  BenchResult out;
  out.name = path;
  KVSIM_RETURN_IF_ERROR(read_settings(root, path, &out));
  KVSIM_ASSIGN_OR_RETURN(const json* inputs, list_of(root, path, "input_lens", 0));
  const size_t n = inputs->size();
  KVSIM_ASSIGN_OR_RETURN(const json* outputs, list_of(root, path, "output_lens", n));
  KVSIM_ASSIGN_OR_RETURN(const json* ttfts, list_of(root, path, "ttfts", n));
  KVSIM_ASSIGN_OR_RETURN(const json* itls, list_of(root, path, "itls", n));
  const json* errors = nullptr;
  if (root.contains("errors")) {
    KVSIM_ASSIGN_OR_RETURN(errors, list_of(root, path, "errors", n));
  }
  const json* starts = nullptr;
  if (root.contains("start_times")) {
    KVSIM_ASSIGN_OR_RETURN(starts, list_of(root, path, "start_times", n));
  }
  for (size_t i = 0; i < n; ++i) {
    BenchRequest request;
    bool ok = true;
    KVSIM_RETURN_IF_ERROR(
        read_request(*inputs, *outputs, *ttfts, *itls, errors, starts, i, path, &request, &ok));
    if (ok) {
      out.requests.push_back(std::move(request));
    } else {
      ++out.failed;
    }
  }
  return out;
}

// Each non-blank line an object, named path:LINE.
StatusOr<std::vector<BenchResult>> read_json_lines(const std::string& path,
                                                   const std::string& contents) {
  std::vector<BenchResult> results;
  std::istringstream lines(contents);
  std::string line;
  for (size_t number = 1; std::getline(lines, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{}:{}", path, number);
    json root;
    try {
      root = json::parse(line);
    } catch (const json::parse_error& e) {
      return error(fmt::format("{}:{}", where, e.byte), "not valid JSON");
    }
    KVSIM_ASSIGN_OR_RETURN(BenchResult result, read_result_object(root, where));
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace

StatusOr<std::vector<BenchResult>> read_bench_results(const std::string& path,
                                                      const std::string& text) {
  std::string contents = text;
  if (contents.empty()) {
    KVSIM_ASSIGN_OR_RETURN(contents, read_file(path));
  }
  contents = without_non_finite(contents);
  json root;
  try {
    root = json::parse(contents);
  } catch (const json::parse_error& e) {
    // One object per line (SGLang's --output-file appends a line per run)?
    const size_t first_end = contents.find('\n', contents.find_first_not_of(" \t\r\n"));
    if (first_end == std::string::npos ||
        !json::accept(std::string_view(contents).substr(0, first_end))) {
      return error(text_position(contents, path, e.byte), "not valid JSON");
    }
    return read_json_lines(path, contents);
  }
  KVSIM_ASSIGN_OR_RETURN(BenchResult result, read_result_object(root, path));
  return std::vector<BenchResult>{std::move(result)};
}

Status write_bench_trace(const BenchResult& result, uint64_t seed, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return Status::invalid_argument(fmt::format("{}: cannot write the trace", path));
  const bool recorded =
      !result.requests.empty() &&
      std::all_of(result.requests.begin(), result.requests.end(),
                  [](const BenchRequest& r) { return r.start_time_s.has_value(); });
  double first = 0;
  if (recorded) {
    first = *result.requests.front().start_time_s;
    for (const BenchRequest& r : result.requests) first = std::min(first, *r.start_time_s);
  }
  Rng rng(seed);
  double t = 0;
  out << "arrival_s,prompt_tokens,output_tokens\n";
  for (size_t i = 0; i < result.requests.size(); ++i) {
    const BenchRequest& r = result.requests[i];
    if (recorded) {
      t = *r.start_time_s - first;
    } else if (result.request_rate > 0 && i > 0) {
      t += rng.gamma(result.burstiness, 1.0 / (result.request_rate * result.burstiness));
    }
    out << fmt::format("{},{},{}\n", t, std::max(r.prompt_tokens, 1u),
                       std::max(r.output_tokens, 1u));
  }
  out.close();
  if (!out) return Status::invalid_argument(fmt::format("{}: writing the trace failed", path));
  return Status::ok();
}

}  // namespace kvsim::sim
