#include "simulator/cost/batch_spec.h"

#include "core/config/config_reader.h"

namespace kvsim::sim {
namespace {

constexpr uint64_t kMaxCount = 1u << 20;
constexpr uint64_t kMaxTokens = 1u << 30;

Status bad(std::string_view group, const std::string& why) {
  return Status::invalid_argument("batch group '" + std::string(group) + "': " + why +
                                  " (expected decode:NxC, prefill:NxQ[+C], chunk:NxQ[+C] or "
                                  "verify:NxQ[+C])");
}

Status number(std::string_view group, std::string_view text, uint64_t min, uint64_t max,
              const char* what, uint64_t* out) {
  if (!parse_uint64(text, out).is_ok() || *out < min || *out > max) {
    return bad(group, std::string(what) + " '" + std::string(text) +
                          "' is not a whole number in [" + std::to_string(min) + ", " +
                          std::to_string(max) + "]");
  }
  return Status::ok();
}

Status add_group(std::string_view group, BatchShape* shape, BatchShape* draft) {
  const size_t colon = group.find(':');
  const size_t times = group.find('x', colon == std::string_view::npos ? 0 : colon);
  if (colon == std::string_view::npos || times == std::string_view::npos) {
    return bad(group, "no KIND:COUNTxTOKENS");
  }
  const std::string_view kind = group.substr(0, colon);
  const std::string_view count_text = group.substr(colon + 1, times - colon - 1);
  std::string_view tokens_text = group.substr(times + 1);
  std::string_view cached_text = "0";
  if (const size_t plus = tokens_text.find('+'); plus != std::string_view::npos) {
    cached_text = tokens_text.substr(plus + 1);
    tokens_text = tokens_text.substr(0, plus);
  }
  uint64_t count = 0, tokens = 0, cached = 0;
  KVSIM_RETURN_IF_ERROR(number(group, count_text, 1, kMaxCount, "count", &count));
  const uint64_t min_tokens = kind == "decode" ? 0 : kind == "verify" ? 2 : 1;
  KVSIM_RETURN_IF_ERROR(number(group, tokens_text, min_tokens, kMaxTokens, "tokens", &tokens));
  KVSIM_RETURN_IF_ERROR(number(group, cached_text, 0, kMaxTokens, "cached tokens", &cached));
  if (kind == "decode") {
    if (cached_text != "0") return bad(group, "a decode's context is its token count, no '+'");
    for (uint64_t i = 0; i < count; ++i) shape->add(1, tokens, false, true);
    if (draft != nullptr) {
      for (uint64_t i = 0; i < count; ++i) draft->add(1, tokens + 1, false, 1);
    }
    return Status::ok();
  }
  if (kind != "prefill" && kind != "chunk" && kind != "verify") {
    return bad(group, "unknown kind '" + std::string(kind) + "'");
  }
  const uint64_t sampled = kind == "verify" ? tokens : kind == "prefill" ? 1 : 0;
  for (uint64_t i = 0; i < count; ++i) shape->add(tokens, cached, true, sampled);
  if (draft != nullptr) {
    for (uint64_t i = 0; i < count; ++i) draft->add(1, cached + tokens, false, 1);
  }
  return Status::ok();
}

}  // namespace

StatusOr<BatchShape> parse_batch_spec(std::string_view spec, uint32_t window_tokens,
                                      BatchShape* draft) {
  BatchShape shape;
  shape.window_tokens = window_tokens;
  if (draft != nullptr) {
    *draft = BatchShape{};
    draft->window_tokens = window_tokens;
  }
  size_t begin = 0;
  while (begin <= spec.size()) {
    const size_t comma = spec.find(',', begin);
    const std::string_view group = spec.substr(
        begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin);
    if (group.empty())
      return Status::invalid_argument("batch spec '" + std::string(spec) + "': empty group");
    KVSIM_RETURN_IF_ERROR(add_group(group, &shape, draft));
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  return shape;
}

std::string describe_batch(const BatchShape& b) {
  return std::to_string(b.num_seqs) + " sequences: " + std::to_string(b.num_prefill_chunks) +
         " prefill chunks (" + std::to_string(b.prefill_tokens) + " tokens), " +
         std::to_string(b.num_decodes()) + " decodes; " + std::to_string(b.new_tokens) +
         " new tokens, " + std::to_string(b.context_tokens) + " cached, " +
         std::to_string(b.sampled_tokens) + " sampled";
}

}  // namespace kvsim::sim
