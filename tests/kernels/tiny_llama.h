// A small random LLaMA checkpoint and a byte-level tokenizer with a few merges, made by the
// tests themselves (the loader and the forward pass are tested without the shared model).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "kernels/llama_checkpoint.h"
#include "kernels/tokenizer.h"

namespace kvsim::testing {

// dim 32, hidden 48, 2 layers, 4 query heads, 2 KV heads (head_dim 8), vocab 262, seq_len 64.
inline kernels::LlamaConfig tiny_config() {
  kernels::LlamaConfig c;
  c.dim = 32;
  c.hidden_dim = 48;
  c.n_layers = 2;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.vocab_size = 262;
  c.seq_len = 64;
  return c;
}

inline kernels::LlamaWeights random_weights(const kernels::LlamaConfig& c, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto fill = [&](size_t n, float mean, float stddev) {
    std::normal_distribution<float> normal(mean, stddev);
    std::vector<float> x(n);
    for (float& v : x) v = normal(rng);
    return x;
  };
  const size_t layers = c.n_layers, dim = c.dim, kv = c.kv_dim(), hidden = c.hidden_dim;
  const float w = 1.0f / std::sqrt(static_cast<float>(dim));
  kernels::LlamaWeights weights;
  weights.config = c;
  weights.token_embedding = fill(c.vocab_size * dim, 0.0f, 1.0f);
  weights.rms_att = fill(layers * dim, 1.0f, 0.1f);
  weights.wq = fill(layers * dim * dim, 0.0f, 2.0f * w);
  weights.wk = fill(layers * kv * dim, 0.0f, 2.0f * w);
  weights.wv = fill(layers * kv * dim, 0.0f, w);
  weights.wo = fill(layers * dim * dim, 0.0f, w);
  weights.rms_ffn = fill(layers * dim, 1.0f, 0.1f);
  weights.w1 = fill(layers * hidden * dim, 0.0f, w);
  weights.w2 = fill(layers * dim * hidden, 0.0f, 1.0f / std::sqrt(static_cast<float>(hidden)));
  weights.w3 = fill(layers * hidden * dim, 0.0f, w);
  weights.rms_final = fill(dim, 1.0f, 0.1f);
  if (!c.shared_classifier) weights.wcls = fill(c.vocab_size * dim, 0.0f, 1.0f);
  return weights;
}

// "<unk>", "<s>", "</s>", one piece per byte (printable ASCII as itself, others "<0xNN>"),
// then the merges "th" (score 1), "the" (2), " the" (3).
inline std::vector<std::string> tiny_pieces() {
  std::vector<std::string> pieces = {"<unk>", "<s>", "</s>"};
  for (int b = 0; b < 256; ++b) {
    if (b >= 32 && b < 127) {
      pieces.emplace_back(1, static_cast<char>(b));
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "<0x%02X>", b);
      pieces.emplace_back(hex);
    }
  }
  for (const char* merge : {"th", "the", " the"}) pieces.emplace_back(merge);
  return pieces;
}

inline std::vector<float> tiny_scores() {
  std::vector<float> scores(259, 0.0f);
  scores.insert(scores.end(), {1.0f, 2.0f, 3.0f});
  return scores;
}

inline void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

// A temporary folder holding model.bin and tokenizer.bin of the tiny model; removed at the end.
class TinyModelFiles {
 public:
  explicit TinyModelFiles(const std::string& name, uint64_t seed = 1)
      : dir_(std::filesystem::temp_directory_path() /
             ("kvsim_tiny_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
    write_bytes(checkpoint(),
                kernels::serialize_llama_checkpoint(random_weights(tiny_config(), seed)));
    write_bytes(tokenizer(), kernels::serialize_tokenizer(tiny_pieces(), tiny_scores()));
  }
  ~TinyModelFiles() { std::filesystem::remove_all(dir_); }
  std::filesystem::path checkpoint() const { return dir_ / "model.bin"; }
  std::filesystem::path tokenizer() const { return dir_ / "tokenizer.bin"; }
  std::filesystem::path dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace kvsim::testing
