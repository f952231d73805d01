#include "core/engine/engine_config.h"

#include "core/base/enum_names.h"
#include "core/base/text_format.h"
#include "core/config/config_reader.h"

namespace kvsim {
namespace {

// A setting spelled as one of two words: `yes` is true, `no` false.
StatusOr<bool> parse_word_pair(std::string_view text, std::string_view yes, std::string_view no) {
  if (text == yes || text == no) return text == yes;
  return Status::invalid_argument("expected '" + std::string(yes) + "' or '" + std::string(no) +
                                  "', got '" + std::string(text) + "'");
}

void read_settings(ConfigReader& r, EngineQuery* out) {
  double utilization = 0;
  r.optional("memory_utilization", &utilization, 1e-6, 1.0);
  if (utilization > 0) out->memory_utilization = utilization;
  r.optional("max_model_len", &out->max_model_len, uint64_t{1}, uint64_t{1} << 32);
  r.optional("max_num_batched_tokens", &out->max_num_batched_tokens, 1u, 1u << 30);
  r.optional("max_num_seqs", &out->max_num_seqs, 1u, 1u << 20);
  if (r.has("chunked_prefill")) {
    bool chunked = true;
    r.optional("chunked_prefill", &chunked);
    out->chunked_prefill = chunked;
  }
}

}  // namespace

StatusOr<bool> parse_cuda_graph_memory(std::string_view text) {
  return parse_word_pair(text, "subtract", "ignore");
}

StatusOr<bool> parse_compile_cache(std::string_view text) {
  return parse_word_pair(text, "warm", "cold");
}

Status read_engine_config(const ConfigNode& node, EngineConfigKeys keys, EngineQuery* out) {
  if (node.is_scalar()) {
    const auto kind = parse_engine_kind(node.text());
    if (!kind.is_ok()) return error_at(node.mark(), "engine: " + kind.status().message());
    out->kind = *kind;
    return Status::ok();
  }
  ConfigReader r(node, "engine");
  r.required_with("name", &out->kind, parse_into<parse_engine_kind>);
  if (r.has("version")) {
    EngineVersion version;
    r.optional_with("version", &version, parse_into<parse_engine_version>);
    out->version = version;
  }
  r.optional_with("entry_point", &out->entry_point, parse_into<parse_entry_point>);
  if (r.has("cuda_graph_memory")) {
    bool subtract = false;
    r.optional_with("cuda_graph_memory", &subtract, parse_into<parse_cuda_graph_memory>);
    out->cuda_graph_memory = subtract;
  }
  r.optional("enforce_eager", &out->enforce_eager);
  r.optional_with("compile_cache", &out->warm_compile_cache, parse_into<parse_compile_cache>);
  r.optional("device_used_bytes", &out->device_used_bytes, uint64_t{0}, uint64_t{1} << 60);
  if (keys == EngineConfigKeys::kDeployment) read_settings(r, out);
  return r.finish();
}

ConfigNode engine_config_node(const EngineQuery& query) {
  ConfigNode map = ConfigNode::map();
  const auto put = [&map](const char* key, const std::string& value) {
    map.set(key, ConfigNode::scalar(value));
  };
  put("name", std::string(engine_kind_name(query.kind)));
  if (query.version) put("version", engine_version_name(*query.version));
  put("entry_point", std::string(entry_point_name(query.entry_point)));
  if (query.cuda_graph_memory)
    put("cuda_graph_memory", *query.cuda_graph_memory ? "subtract" : "ignore");
  if (query.enforce_eager) put("enforce_eager", "true");
  if (query.warm_compile_cache) put("compile_cache", "warm");
  if (query.device_used_bytes > 0)
    put("device_used_bytes", std::to_string(query.device_used_bytes));
  if (query.memory_utilization) put("memory_utilization", format_number(*query.memory_utilization));
  if (query.max_model_len > 0) put("max_model_len", std::to_string(query.max_model_len));
  if (query.max_num_batched_tokens > 0)
    put("max_num_batched_tokens", std::to_string(query.max_num_batched_tokens));
  if (query.max_num_seqs > 0) put("max_num_seqs", std::to_string(query.max_num_seqs));
  if (query.chunked_prefill) put("chunked_prefill", *query.chunked_prefill ? "true" : "false");
  return map;
}

}  // namespace kvsim
