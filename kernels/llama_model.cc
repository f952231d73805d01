#include "kernels/llama_model.h"

#include <cmath>
#include <numeric>

#include "core/base/check.h"
#include "kernels/attention_reference.h"

namespace kvsim::kernels {
namespace {

constexpr float kRmsEps = 1e-5f;
constexpr float kRopeBase = 10000.0f;

using ConstMatrixMap = Eigen::Map<const RowMatrix>;

// Rows `layer` of a stacked [layers, rows, cols] tensor.
ConstMatrixMap layer_matrix(const std::vector<float>& w, uint32_t layer, uint32_t rows,
                            uint32_t cols) {
  return ConstMatrixMap(w.data() + size_t{layer} * rows * cols, rows, cols);
}

// out = rmsnorm(x) * weight, row by row (llama2.c: x / sqrt(mean(x^2) + eps) * w).
void rmsnorm(const RowMatrix& x, const float* weight, RowMatrix* out) {
  out->resize(x.rows(), x.cols());
  const Eigen::Map<const Eigen::RowVectorXf> w(weight, x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const float mean_square = x.row(r).squaredNorm() / static_cast<float>(x.cols());
    const float scale = 1.0f / std::sqrt(mean_square + kRmsEps);
    out->row(r) = (x.row(r) * scale).cwiseProduct(w);
  }
}

}  // namespace

LlamaModel::LlamaModel(LlamaWeights weights) : weights_(std::move(weights)) {
  const LlamaConfig& c = weights_.config;
  const uint32_t half = c.head_dim() / 2;
  rope_cos_.resize(size_t{c.seq_len} * half);
  rope_sin_.resize(rope_cos_.size());
  for (uint32_t pos = 0; pos < c.seq_len; ++pos) {
    for (uint32_t i = 0; i < half; ++i) {
      // As llama2.c's run.c computes it, in fp32.
      const float freq =
          1.0f / std::pow(kRopeBase, static_cast<float>(2 * i) / static_cast<float>(c.head_dim()));
      const float angle = static_cast<float>(pos) * freq;
      rope_cos_[size_t{pos} * half + i] = std::cos(angle);
      rope_sin_[size_t{pos} * half + i] = std::sin(angle);
    }
  }
}

AttentionShape LlamaModel::attention_shape() const {
  const LlamaConfig& c = weights_.config;
  return {c.n_heads, c.n_kv_heads, c.head_dim()};
}

void LlamaModel::embed(std::span<const int> tokens, RowMatrix* x) const {
  const LlamaConfig& c = weights_.config;
  x->resize(static_cast<Eigen::Index>(tokens.size()), c.dim);
  for (size_t i = 0; i < tokens.size(); ++i) {
    KVSIM_CHECK(tokens[i] >= 0 && static_cast<uint32_t>(tokens[i]) < c.vocab_size,
                "embed: token id out of the vocabulary");
    x->row(static_cast<Eigen::Index>(i)) = Eigen::Map<const Eigen::RowVectorXf>(
        weights_.token_embedding.data() + size_t(tokens[i]) * c.dim, c.dim);
  }
}

void LlamaModel::rope(std::span<const uint32_t> positions, uint32_t width, RowMatrix* x) const {
  const uint32_t head_dim = weights_.config.head_dim();
  const uint32_t half = head_dim / 2;
  KVSIM_CHECK(positions.size() == static_cast<size_t>(x->rows()), "rope: one position per row");
  for (Eigen::Index r = 0; r < x->rows(); ++r) {
    const uint32_t pos = positions[static_cast<size_t>(r)];
    KVSIM_CHECK(pos < weights_.config.seq_len, "rope: position >= seq_len");
    const size_t table = size_t{pos} * half;
    float* row = x->row(r).data();
    for (uint32_t i = 0; i < width; i += 2) {
      const uint32_t pair = (i % head_dim) / 2;
      const float cos_a = rope_cos_[table + pair];
      const float sin_a = rope_sin_[table + pair];
      const float v0 = row[i];
      const float v1 = row[i + 1];
      row[i] = v0 * cos_a - v1 * sin_a;
      row[i + 1] = v0 * sin_a + v1 * cos_a;
    }
  }
}

void LlamaModel::attention_inputs(uint32_t layer, const RowMatrix& x,
                                  std::span<const uint32_t> positions, RowMatrix* q, RowMatrix* k,
                                  RowMatrix* v) const {
  const LlamaConfig& c = weights_.config;
  RowMatrix h;
  rmsnorm(x, weights_.rms_att.data() + size_t{layer} * c.dim, &h);
  q->noalias() = h * layer_matrix(weights_.wq, layer, c.dim, c.dim).transpose();
  k->noalias() = h * layer_matrix(weights_.wk, layer, c.kv_dim(), c.dim).transpose();
  v->noalias() = h * layer_matrix(weights_.wv, layer, c.kv_dim(), c.dim).transpose();
  rope(positions, c.dim, q);
  rope(positions, c.kv_dim(), k);
}

void LlamaModel::finish_layer(uint32_t layer, const RowMatrix& attention, RowMatrix* x) const {
  const LlamaConfig& c = weights_.config;
  x->noalias() += attention * layer_matrix(weights_.wo, layer, c.dim, c.dim).transpose();
  RowMatrix h;
  rmsnorm(*x, weights_.rms_ffn.data() + size_t{layer} * c.dim, &h);
  RowMatrix gate = h * layer_matrix(weights_.w1, layer, c.hidden_dim, c.dim).transpose();
  const RowMatrix up = h * layer_matrix(weights_.w3, layer, c.hidden_dim, c.dim).transpose();
  gate = (gate.array() / (1.0f + (-gate.array()).exp()) * up.array()).matrix();  // silu * up
  x->noalias() += gate * layer_matrix(weights_.w2, layer, c.dim, c.hidden_dim).transpose();
}

void LlamaModel::logits(const RowMatrix& x, RowMatrix* out) const {
  const LlamaConfig& c = weights_.config;
  RowMatrix h;
  rmsnorm(x, weights_.rms_final.data(), &h);
  out->noalias() =
      h * ConstMatrixMap(weights_.classifier().data(), c.vocab_size, c.dim).transpose();
}

RowMatrix LlamaModel::forward_reference(std::span<const int> tokens) const {
  const AttentionShape shape = attention_shape();
  const uint32_t n = static_cast<uint32_t>(tokens.size());
  RowMatrix x, q, k, v;
  embed(tokens, &x);
  std::vector<uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  for (uint32_t layer = 0; layer < weights_.config.n_layers; ++layer) {
    attention_inputs(layer, x, positions, &q, &k, &v);
    RowMatrix attention(n, shape.q_width());
    attention_reference(shape, n, n, {q.data(), size_t(q.size())}, {k.data(), size_t(k.size())},
                        {v.data(), size_t(v.size())}, {attention.data(), size_t(attention.size())});
    finish_layer(layer, attention, &x);
  }
  RowMatrix out;
  logits(x, &out);
  return out;
}

}  // namespace kvsim::kernels
