#include "kernels/llama_checkpoint.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "kernels/byte_reader.h"

namespace kvsim::kernels {
namespace {

constexpr size_t kHeaderBytes = 7 * sizeof(int32_t);

// Upper bounds that keep every size computation far from overflow and reject garbage headers
// before any allocation.
constexpr int32_t kMaxDim = 1 << 16;
constexpr int32_t kMaxHidden = 1 << 18;
constexpr int32_t kMaxLayers = 1024;
constexpr int32_t kMaxVocab = 1 << 22;
constexpr int32_t kMaxSeqLen = 1 << 20;

struct TensorSpec {
  const char* name;
  std::vector<float> LlamaWeights::*member;
  uint64_t count;
};

Status header_error(const std::string& what) {
  return Status::parse_error("checkpoint header: " + what);
}

Status check_range(const char* field, int32_t value, int32_t max) {
  if (value <= 0 || value > max) {
    return header_error(fmt::format("{} = {}, expected 1..{}", field, value, max));
  }
  return Status::ok();
}

StatusOr<LlamaConfig> parse_header(ByteReader* reader) {
  int32_t h[7];
  for (int32_t& value : h) {
    if (!reader->read_int32(&value)) {
      return header_error("truncated: expected 28 bytes (7 int32), the file is shorter");
    }
  }
  KVSIM_RETURN_IF_ERROR(check_range("dim", h[0], kMaxDim));
  KVSIM_RETURN_IF_ERROR(check_range("hidden_dim", h[1], kMaxHidden));
  KVSIM_RETURN_IF_ERROR(check_range("n_layers", h[2], kMaxLayers));
  KVSIM_RETURN_IF_ERROR(check_range("n_heads", h[3], h[0]));
  KVSIM_RETURN_IF_ERROR(check_range("n_kv_heads", h[4], h[3]));
  if (h[5] == 0 || h[5] < -kMaxVocab || h[5] > kMaxVocab) {
    return header_error(
        fmt::format("vocab_size = {}, expected a non-zero value within +-{}", h[5], kMaxVocab));
  }
  KVSIM_RETURN_IF_ERROR(check_range("seq_len", h[6], kMaxSeqLen));
  LlamaConfig c;
  c.dim = static_cast<uint32_t>(h[0]);
  c.hidden_dim = static_cast<uint32_t>(h[1]);
  c.n_layers = static_cast<uint32_t>(h[2]);
  c.n_heads = static_cast<uint32_t>(h[3]);
  c.n_kv_heads = static_cast<uint32_t>(h[4]);
  c.vocab_size = static_cast<uint32_t>(h[5] < 0 ? -h[5] : h[5]);
  c.shared_classifier = h[5] > 0;
  c.seq_len = static_cast<uint32_t>(h[6]);
  if (c.dim % c.n_heads != 0 || c.head_dim() % 2 != 0) {
    return header_error(fmt::format(
        "dim {} / n_heads {} must be a whole, even head_dim (RoPE pairs)", c.dim, c.n_heads));
  }
  if (c.n_heads % c.n_kv_heads != 0) {
    return header_error(
        fmt::format("n_kv_heads {} must divide n_heads {}", c.n_kv_heads, c.n_heads));
  }
  return c;
}

std::vector<TensorSpec> tensor_specs(const LlamaConfig& c) {
  const uint64_t layers = c.n_layers, dim = c.dim, kv = c.kv_dim(), hidden = c.hidden_dim;
  return {{"token_embedding", &LlamaWeights::token_embedding, uint64_t{c.vocab_size} * dim},
          {"rms_att", &LlamaWeights::rms_att, layers * dim},
          {"wq", &LlamaWeights::wq, layers * dim * dim},
          {"wk", &LlamaWeights::wk, layers * kv * dim},
          {"wv", &LlamaWeights::wv, layers * kv * dim},
          {"wo", &LlamaWeights::wo, layers * dim * dim},
          {"rms_ffn", &LlamaWeights::rms_ffn, layers * dim},
          {"w1", &LlamaWeights::w1, layers * hidden * dim},
          {"w2", &LlamaWeights::w2, layers * dim * hidden},
          {"w3", &LlamaWeights::w3, layers * hidden * dim},
          {"rms_final", &LlamaWeights::rms_final, dim}};
}

uint64_t rope_floats(const LlamaConfig& c) { return uint64_t{c.seq_len} * c.head_dim(); }

uint64_t expected_bytes(const LlamaConfig& c) {
  uint64_t floats = rope_floats(c);
  for (const TensorSpec& t : tensor_specs(c)) floats += t.count;
  if (!c.shared_classifier) floats += uint64_t{c.vocab_size} * c.dim;
  return kHeaderBytes + floats * sizeof(float);
}

Status read_tensor(ByteReader* reader, const char* name, uint64_t count, std::vector<float>* out) {
  out->resize(count);
  if (!reader->read_floats(out->data(), count)) {
    return Status::parse_error(fmt::format("truncated in tensor {}", name));
  }
  for (uint64_t i = 0; i < count; ++i) {
    if (!std::isfinite((*out)[i])) {
      return Status::parse_error(
          fmt::format("non-finite weight in tensor {} at element {}", name, i));
    }
  }
  return Status::ok();
}

Status parse_body(ByteReader* reader, size_t file_size, LlamaWeights* w) {
  const uint64_t expected = expected_bytes(w->config);
  if (file_size != expected) {
    return Status::parse_error(fmt::format(
        "{}: the header (dim {}, {} layers, vocab {}, seq_len {}) implies {} bytes, "
        "the file has {}",
        file_size < expected ? "truncated" : "trailing bytes", w->config.dim, w->config.n_layers,
        w->config.vocab_size, w->config.seq_len, expected, file_size));
  }
  for (const TensorSpec& t : tensor_specs(w->config)) {
    KVSIM_RETURN_IF_ERROR(read_tensor(reader, t.name, t.count, &(w->*t.member)));
  }
  KVSIM_CHECK(reader->skip(rope_floats(w->config) * sizeof(float)), "size checked above");
  if (!w->config.shared_classifier) {
    KVSIM_RETURN_IF_ERROR(
        read_tensor(reader, "wcls", uint64_t{w->config.vocab_size} * w->config.dim, &w->wcls));
  }
  return Status::ok();
}

void append_floats(const std::vector<float>& x, std::vector<uint8_t>* out) {
  append_bytes(x.data(), x.size() * sizeof(float), out);
}

}  // namespace

StatusOr<std::vector<uint8_t>> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::not_found(path + ": cannot open file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) return Status::io_error(path + ": read failed");
  return bytes;
}

StatusOr<LlamaWeights> parse_llama_checkpoint(std::span<const uint8_t> bytes,
                                              const std::string& name) {
  ByteReader reader(bytes);
  LlamaWeights weights;
  auto config = parse_header(&reader);
  if (!config.is_ok()) return config.status().with_context(name);
  weights.config = *config;
  const Status body = parse_body(&reader, bytes.size(), &weights);
  if (!body.is_ok()) return body.with_context(name);
  return weights;
}

StatusOr<LlamaWeights> load_llama_checkpoint(const std::string& path) {
  KVSIM_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes, read_file_bytes(path));
  return parse_llama_checkpoint(bytes, path);
}

std::vector<uint8_t> serialize_llama_checkpoint(const LlamaWeights& w) {
  const LlamaConfig& c = w.config;
  std::vector<uint8_t> out;
  const int32_t vocab = static_cast<int32_t>(c.vocab_size);
  const int32_t header[7] = {
      static_cast<int32_t>(c.dim),        static_cast<int32_t>(c.hidden_dim),
      static_cast<int32_t>(c.n_layers),   static_cast<int32_t>(c.n_heads),
      static_cast<int32_t>(c.n_kv_heads), c.shared_classifier ? vocab : -vocab,
      static_cast<int32_t>(c.seq_len)};
  append_bytes(header, sizeof(header), &out);
  for (const TensorSpec& t : tensor_specs(c)) append_floats(w.*t.member, &out);
  const uint32_t half = c.head_dim() / 2;
  std::vector<float> cos_table, sin_table;
  for (uint32_t pos = 0; pos < c.seq_len; ++pos) {
    for (uint32_t i = 0; i < half; ++i) {
      const float freq = 1.0f / std::pow(10000.0f, static_cast<float>(2 * i) / c.head_dim());
      cos_table.push_back(std::cos(pos * freq));
      sin_table.push_back(std::sin(pos * freq));
    }
  }
  append_floats(cos_table, &out);
  append_floats(sin_table, &out);
  if (!c.shared_classifier) append_floats(w.wcls, &out);
  return out;
}

}  // namespace kvsim::kernels
